"""The plan of a large generated fleet, pinned byte for byte (JSON and text).

A fleet of a few hundred deployments (git_host and internal_docker, defaults, secrets,
sidecars, ignore_changes) is applied through the real CLI against the embedded control
plane; then the config is changed and the workspace is changed outside the planner so the
next plan holds every kind of entry: no-ops, updates in place, new revisions, drift planned
back, rotated secrets, creates, deletes, deployments deleted outside, an existing namesake
(an error) and unmanaged deployments. The plan is compared with tests/cli/golden/ after
the server's ids and timestamps are replaced by stable placeholders: whatever makes plans
faster must not change one byte of them. `UPDATE_GOLDEN=1` rewrites the files.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, DeploymentCreate, DeploymentPatch
from planner.controlplane.settings import EMBEDDED_API_KEY
from planner.plan.saved import SAVED_KEY
from planner.secrets import digest_key, secret_digest
from tests.cli.conftest import Scenario

GOLDEN = Path(__file__).parents[1] / "golden"
FLEET = 240
CREATES = 12
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
TOKENS = {"FLEET_TOKEN": "fleet-token-value-1", "ROTATED_TOKEN": "fleet-token-value-2"}
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
# What happens to deployment i of the fleet, by i % len(KINDS)
# (an odd length: every kind meets both sources).
KINDS = [
    "no-op",
    "no-op",
    "no-op",
    "no-op",
    "in-place",
    "new-revision",
    "drift",
    "delete",
    "secret",
    "resources",
    "gone",
]


def kind(i: int) -> str:
    return KINDS[i % len(KINDS)]


def name(i: int) -> str:
    return f"fleet-{i:03d}"


def deployment_toml(i: int, version: int) -> str:
    """One deployment's tables; VERSION 2 carries the config side of the changes."""
    changed = version == 2
    table = f"deployments.{name(i)}"
    lines = [f"[{table}]"]
    if i % 2 == 0:
        lines += ['source = "git_host"', f"[{table}.source_config]"]
        lines += [f'integration_id = "{INTEGRATION}"']
        lines += [f'repo_url = "https://git.example.com/acme/{name(i)}"']
        lines += [f"build_on_push = {'true' if changed and kind(i) == 'in-place' else 'false'}"]
    else:
        # internal_docker has no field that changes in place: its "in-place" ones stay put
        lines += ['source = "internal_docker"', f"[{table}.source_config]"]
        lines += [f'deployment_type = "{"dev" if i % 5 == 0 else "prod"}"']
    if i % 3 == 0 or kind(i) == "resources":
        lines += [f"[{table}.source_config.resource_spec]"]
        lines += [f"max_scale = {4 if changed and kind(i) == 'resources' else 2}"]
        lines += [f'labels = {{ team = "team-{i % 5}" }}']
        image = "shipper:1.1" if changed and kind(i) == "resources" else "shipper:1.0"
        lines += [f"[[{table}.source_config.resource_spec.sidecars]]"]
        lines += ['name = "log-shipper"', f'image = "{image}"']
    lines += [f"[{table}.source_revision_config]"]
    ref = "release" if changed and kind(i) == "new-revision" else "main"
    if i % 2 == 0:
        lines += [f'repo_ref = "{ref}"', 'agent_config_path = "agent.json"']
    else:
        lines += [f'image_uri = "registry.example.com/acme/{name(i)}:{ref}"']
    if i % 4 == 0 or kind(i) == "secret":
        token = "ROTATED_TOKEN" if changed and kind(i) == "secret" else "FLEET_TOKEN"
        lines += [f"[{table}.secrets]", f'API_TOKEN = {{ env = "{token}" }}', 'LOG_LEVEL = "info"']
    if i % 7 == 0:
        lines += [f"[{table}.lifecycle]", 'ignore_changes = ["source_config.resource_spec.labels"]']
    return "\n".join(lines) + "\n\n"


def fleet_config(version: int) -> str:
    """The fleet's config: version 1 as applied, version 2 as planned."""
    head = "[defaults.source_config.resource_spec]\ncpu = 0.5\nmemory_mb = 512\nmin_scale = 1\n\n"
    kept = [i for i in range(FLEET) if version == 1 or kind(i) != "delete"]
    text = head + "".join(deployment_toml(i, version) for i in kept)
    if version == 2:
        extra = [f"fleet-new-{n:02d}" for n in range(CREATES)] + ["hand-made-clash"]
        text += "".join(
            f'[deployments.{new}]\nsource = "internal_docker"\n'
            f"[deployments.{new}.source_revision_config]\n"
            f'image_uri = "registry.example.com/acme/{new}:1"\n\n'
            for new in extra
        )
    return text


def outside_changes(scenario: Scenario) -> None:
    """What people did by hand since the apply: drift, deletions, deployments made."""

    async def change(client: ControlPlaneClient) -> None:
        live = {d.name: d async for d in client.iter_deployments()}
        for i in range(FLEET):
            deployment = live[name(i)]
            if kind(i) == "drift":
                body: dict[str, object] = (
                    {"source_config": {"build_on_push": True}}
                    if i % 2 == 0
                    else {"source_revision_config": {"image_uri": "registry.example.com/x:9"}}
                )
                await client.patch_deployment(deployment.id, DeploymentPatch.model_validate(body))
        await client.delete_deployments(live[name(i)].id for i in range(FLEET) if kind(i) == "gone")
        for made in ("hand-made-clash", "hand-made-1", "hand-made-2"):
            body = {
                "name": made,
                "source": "internal_docker",
                "source_revision_config": {"image_uri": f"registry.example.com/{made}:1"},
            }
            await client.create_deployment(DeploymentCreate.model_validate(body))

    scenario.remote(change)


def converged(scenario: Scenario) -> list[Deployment]:
    """Every deployment of the workspace once no revision is rolling out or deleting."""

    async def listing(client: ControlPlaneClient) -> list[Deployment]:
        return [d async for d in client.iter_deployments()]

    for _ in range(600):
        found = scenario.remote(listing)
        if all(
            d.latest_revision_id == d.active_revision_id and d.status != "AWAITING_DELETE"
            for d in found
        ):
            return found
        time.sleep(0.05)
    raise AssertionError("the fleet did not converge")


def placeholders(text: str, ids: dict[str, str], key: bytes) -> str:
    """TEXT with each server id replaced by `<id NAME>`, every timestamp by `<time>` and
    the digest of each known secret value (keyed by the state's lineage) by a name."""
    for deployment_id, owner in ids.items():
        text = text.replace(deployment_id, f"<id {owner}>")
    for variable, value in [*TOKENS.items(), ("info", "info")]:
        secret = "LOG_LEVEL" if variable == "info" else "API_TOKEN"
        text = text.replace(secret_digest(key, secret, value), f"<digest of {variable}>")
    return STAMP.sub("<time>", text)


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == actual, (
        f"{path.name} differs; if the change is intended: UPDATE_GOLDEN=1 pytest {__file__}"
    )


def test_the_plan_of_a_generated_fleet_is_pinned(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A few hundred deployments with every kind of change plan exactly as the golden
    files say, in JSON and text, and a saved plan holds the same JSON plan."""
    for variable, value in TOKENS.items():
        monkeypatch.setenv(variable, value)
    scenario.write_config(fleet_config(1))
    applied = scenario.cli("apply", "--auto-approve", "--parallelism", "50")
    assert applied.code == 0, applied.err
    state = scenario.state()
    assert state is not None and len(state.deployments) == FLEET
    ids = {r.id: name for name, r in state.deployments.items()}
    key = digest_key(EMBEDDED_API_KEY, state.lineage)
    converged(scenario)
    outside_changes(scenario)
    ids |= {d.id: d.name for d in converged(scenario)}
    scenario.write_config(fleet_config(2))
    as_json = scenario.plan("--format", "json")
    as_text = scenario.plan()
    assert as_json.code == 1 and as_text.code == 1, as_text.err  # the namesake's error
    plan = json.loads(as_json.out)
    summary = {k: v for k, v in plan["summary"].items() if v}
    assert summary == {"create": 33, "update": 22, "new_revision": 76, "delete": 22, "no_op": 99}
    assert {u["name"] for u in plan["unmanaged"]} == {"hand-made-1", "hand-made-2"}
    check_golden("fleet_plan.json", placeholders(as_json.out, ids, key))
    check_golden("fleet_plan.txt", placeholders(as_text.out, ids, key))
    for value in TOKENS.values():
        assert value not in as_json.out + as_text.out
    # without the error, the plan can be saved: the file holds the same JSON plan
    narrowed = scenario.plan("--format", "json", "--exclude", "hand-made-clash")
    saved = scenario.plan("--out", "fleet.plan", "--exclude", "hand-made-clash")
    assert saved.code == 0, saved.err
    in_file = json.loads((scenario.root / "fleet.plan").read_text(encoding="utf-8"))
    in_file.pop(SAVED_KEY)
    assert in_file == json.loads(narrowed.out)
