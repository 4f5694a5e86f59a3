"""The world of the property "apply executes exactly what plan shows"
(tests/cli/apply/test_apply_matches_plan.py): the config as a list of `Spec`s, and the few
readings of the plan JSON and the apply events the property compares.

A `Spec` is one deployment table with a value per field class: `build_on_push` (in
place), `max_scale`, the artifact (`image_uri` / `repo_ref`) and the secret (new
revision), `repo` (`repo_url`, immutable). A `mark` puts the local control plane's
failure trigger (`fail-build` / `fail-deploy`) in the artifact, so its rollout fails.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from planner.api.client import ControlPlaneClient
from planner.api.errors import NotFoundError
from planner.api.models import DeploymentStatus, is_final_revision_status
from planner.plan.model import Change
from planner.state import LocalFileBackend, StateDocument
from tests.cli.conftest import Scenario

INTEGRATION_ID = "9a0e7c55-0000-4000-8000-00000000a001"  # in the local plane's default seed
ENVIRONMENTS = ("dev", "prod")
# Actions for which apply sends nothing: a pure move only re-records (PRODUCT.md, Moves).
SILENT_ACTIONS = frozenset({"no_op", "moved"})
# MOVES (issue 19) plans a rename that keeps the remote `name` as a move (`moved_from`).
# Until planner.plan.model's Change carries `moved_from`, that rename plans delete +
# create and apply fails with "already exists" (the first bug), so the rule that
# makes it stays off; it switches itself on when the field exists.
MOVES_PLANNED = "moved_from" in Change.model_fields


@dataclass
class Spec:
    """One deployment of the config: its address, its remote name and a value per class."""

    address: str
    remote: str
    source: str  # "internal_docker" or "git_host"
    secret_variable: str
    artifact: int = 1
    mark: str = ""  # "", "fail-build" or "fail-deploy"
    max_scale: int = 1
    build_on_push: bool = False
    repo: int = 1
    prod_scale: int | None = None  # `max_scale` in prod only (an environment's overlay)

    @property
    def failing(self) -> bool:
        return bool(self.mark)

    def artifact_value(self) -> str:
        suffix = f"-{self.mark}" if self.mark else ""
        if self.source == "git_host":
            return f"main{suffix}-{self.artifact}"
        return f"registry.example.com/acme/agent{suffix}:{self.artifact}"

    def table(self, environments: bool) -> dict[str, Any]:
        """The deployment's table in the config (with environments, one name per env)."""
        table: dict[str, Any] = {"source": self.source}
        if environments:
            table["name"] = self.remote + "-${env}"
        elif self.remote != self.address:
            table["name"] = self.remote
        config: dict[str, Any] = {"resource_spec": {"max_scale": self.max_scale}}
        if self.source == "git_host":
            config.update(
                integration_id=INTEGRATION_ID,
                repo_url=f"https://git.example.com/acme/agent-{self.repo}",
                build_on_push=self.build_on_push,
            )
            revision = {"repo_ref": self.artifact_value(), "agent_config_path": "agent.json"}
        else:
            revision = {"image_uri": self.artifact_value()}
        table["source_config"] = config
        table["source_revision_config"] = revision
        table["secrets"] = {"TOKEN": {"env": self.secret_variable}}
        return table


def config_data(specs: list[Spec], environments: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"deployments": {s.address: s.table(environments) for s in specs}}
    if environments:
        data["environments"] = {env: {} for env in ENVIRONMENTS}
        overlays = {
            s.address: {"source_config": {"resource_spec": {"max_scale": s.prod_scale}}}
            for s in specs
            if s.prod_scale is not None
        }
        data["environments"]["prod"]["deployments"] = overlays
    return data


def write_config(scenario: Scenario, specs: list[Spec], environments: bool) -> None:
    text = json.dumps(config_data(specs, environments), indent=2)
    scenario.config_path.write_text(text, encoding="utf-8")


def state_of(scenario: Scenario, env: str | None) -> StateDocument:
    """The state of ENV (None: the config has no environments)."""
    stem = scenario.config_path.stem + (f".{env}" if env else "")
    document = LocalFileBackend(scenario.root / "state" / f"{stem}.state.json").read()
    assert document is not None, f"no state for {env}"
    return document


def settle(scenario: Scenario) -> None:
    """Wait until no revision of the workspace is in progress and no deployment is being
    deleted (hand edits and interrupted applies leave some), so plan and apply see the
    same world whatever the machine's load."""

    async def busy(client: ControlPlaneClient) -> list[str]:
        names = []
        async for deployment in client.iter_deployments():
            deleting = deployment.status is DeploymentStatus.AWAITING_DELETE
            if deleting or deployment.latest_revision_id is None:
                names.append(deployment.name)
                continue
            try:
                revision = await client.get_revision(deployment.id, deployment.latest_revision_id)
            except NotFoundError:  # deleted since it was listed
                continue
            if not is_final_revision_status(revision.status):
                names.append(deployment.name)
        return names

    deadline = time.monotonic() + 60
    while busy_names := scenario.remote(busy):
        assert time.monotonic() < deadline, f"still rolling out after 60 s: {busy_names}"
        time.sleep(0.05)


def planned(plan: dict[str, Any]) -> set[tuple[str, str]]:
    """(deployment, action) of every change the plan sends something for."""
    return {(c["name"], c["action"]) for c in plan["changes"] if c["action"] not in SILENT_ACTIONS}


def executed(events: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(deployment, action) of every operation the apply's events report (an event about
    a move that sent nothing is bookkeeping, as its change is in `planned`)."""
    return {
        (e["deployment"], e["action"])
        for e in events
        if e["type"] == "operation" and e["action"] not in SILENT_ACTIONS
    }


def touched(events: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(deployment, action) of every event about a deployment that sends something
    (status ones included; a move's own event is compared by `event_moves`)."""
    return {
        (e["deployment"], e["action"])
        for e in events
        if "action" in e and e["action"] not in SILENT_ACTIONS
    }


def event_moves(events: list[dict[str, Any]]) -> dict[str, str]:
    """New address -> old address of every operation event that reports a move."""
    return {
        e["deployment"]: e["moved_from"]
        for e in events
        if e["type"] == "operation" and e.get("moved_from")
    }


def moves(plan: dict[str, Any]) -> dict[str, str]:
    """New address -> old address of every change the plan calls a move."""
    return {c["name"]: c["moved_from"] for c in plan["changes"] if c.get("moved_from")}
