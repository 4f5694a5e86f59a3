"""`planner plan --out FILE`: the saved plan file, its secrecy, and staleness checks."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.api.client import ControlPlaneClient
from planner.cli.options import WorkspaceOptions
from planner.cli.target import resolve_target
from planner.cli.workspace import Workspace
from planner.errors import PlanStaleError
from planner.plan.saved import SavedPlan, read_saved_plan, sealed_content
from planner.plan.stale import check_plan_fresh
from planner.render.json import render_json
from planner.state import LocalFileBackend
from planner.state.plan_key import plan_key_path
from tests.cli.conftest import SECRET_VALUE, Scenario


def check_fresh(scenario: Scenario, saved: SavedPlan) -> None:
    """What apply does before executing: re-read the state, refresh, compare."""

    async def go() -> None:
        target = resolve_target(WorkspaceOptions(config=str(scenario.config_path)), os.environ)
        async with Workspace.open(target, announce=lambda _: None) as ws:
            doc = ws.read_state()
            wanted = set(ws.config.deployments) - set(doc.deployments)
            check_plan_fresh(saved, doc, await ws.refresh(doc, wanted))

    asyncio.run(go())


def test_out_writes_the_json_plan_and_what_apply_needs(scenario: Scenario) -> None:
    """The file holds the JSON plan keys plus lineage, serial, endpoint and seen versions."""
    api = scenario.adopt("api")
    scenario.edit_config('repo_ref = "main"', 'repo_ref = "v2"')
    result = scenario.plan("--out", "plan.json")
    assert result.code == 0, result.err
    assert "Saved the plan to plan.json. To apply exactly this plan: planner apply plan.json" in (
        result.out
    )
    path = scenario.root / "plan.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    raw = json.loads(path.read_text())
    assert raw["format_version"] == "1.2" and raw["summary"]["new_revision"] == 1
    saved = read_saved_plan(path)
    state = scenario.state()
    assert state is not None
    assert (saved.lineage, saved.serial, saved.endpoint) == (
        state.lineage,
        state.serial,
        state.endpoint,
    )
    assert saved.seen["api"].id == api.id
    assert saved.seen["api"].latest_revision_id == scenario.get(api.id).latest_revision_id
    # A rollout's status moves on between two plans (the revision keeps building).
    again = json.loads(scenario.plan("--format", "json").out)
    assert [r["revision_id"] for r in again.pop("rollouts")] == [
        r.revision_id for r in saved.plan.rollouts
    ]
    assert json.loads(render_json(saved.plan.model_copy(update={"rollouts": []}))) == {
        **again,
        "rollouts": [],
    }


def test_saved_plan_holds_no_secret_value(scenario: Scenario) -> None:
    """Neither the plan file nor the output contain the secret's value (digests only)."""
    result = scenario.plan("--out", "plan.json")
    text = (scenario.root / "plan.json").read_text()
    assert SECRET_VALUE not in text
    assert SECRET_VALUE not in result.out + result.err
    assert '"API_TOKEN": "hmac-sha256:' in text


def test_out_on_a_new_state_fixes_its_lineage(scenario: Scenario) -> None:
    """--out with no state yet writes the empty state, so apply plans on the same lineage."""
    assert scenario.plan("--out", "plan.json").code == 0
    state = scenario.state()
    assert state is not None and state.deployments == {}
    saved = read_saved_plan(scenario.root / "plan.json")
    assert (saved.lineage, saved.serial) == (state.lineage, state.serial)
    check_fresh(scenario, saved)  # nothing moved: no error


def test_stale_after_the_state_serial_moves(scenario: Scenario) -> None:
    """A state written after the plan makes it stale, naming both serials."""
    scenario.adopt("worker")
    scenario.plan("--out", "plan.json")
    saved = read_saved_plan(scenario.root / "plan.json")
    scenario.adopt("api")
    try:
        check_fresh(scenario, saved)
    except PlanStaleError as error:
        assert str(error) == (
            f"the plan is stale: the state moved from serial {saved.serial} to {saved.serial + 1}"
        )
    else:
        raise AssertionError("a plan made before a state write must be stale")


def test_stale_after_a_deployment_is_patched_outside(scenario: Scenario) -> None:
    """A deployment changed outside after the plan makes it stale, naming what moved."""
    worker = scenario.adopt("worker")
    scenario.edit_config("worker:1.0.0", "worker:1.1.0")
    scenario.plan("--out", "plan.json")
    saved = read_saved_plan(scenario.root / "plan.json")
    scenario.patch(worker.id, {"source_config": {"resource_spec": {"cpu": 2}}})
    try:
        check_fresh(scenario, saved)
    except PlanStaleError as error:
        assert error.message.startswith("the plan is stale: deployment worker changed")
        assert "(updated_at " in error.message
        assert not any("updated_at" in line for line in error.details)  # said once
    else:
        raise AssertionError("a deployment patched after the plan must make it stale")


def test_plan_with_errors_is_not_saved(scenario: Scenario) -> None:
    """A plan with errors exits 1 and writes no plan file."""
    scenario.create_remote("worker")
    result = scenario.plan("--out", "plan.json")
    assert result.code == 1
    assert "not saved to plan.json" in result.err
    assert not (scenario.root / "plan.json").exists()


def names_on_server(scenario: Scenario) -> list[str]:
    async def names(client: ControlPlaneClient) -> list[str]:
        return sorted([d.name async for d in client.iter_deployments()])

    return scenario.remote(names)


def edit_plan(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    raw = json.loads(path.read_text())
    change(raw)
    path.write_text(json.dumps(raw, indent=2))


def set_max_scale(value: int) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        api = next(c for c in raw["changes"] if c["name"] == "api")
        api["request_body"]["source_config"]["resource_spec"]["max_scale"] = value

    return change


def test_plan_out_creates_the_plan_key_beside_the_state(scenario: Scenario) -> None:
    """`plan --out` seals the file with a key kept beside the state (mode 0600)."""
    assert scenario.plan("--out", "plan.json").code == 0
    key = plan_key_path(scenario.state_path)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    raw = json.loads((scenario.root / "plan.json").read_text())
    assert raw["saved"]["seal"]["digest"].startswith("hmac-sha256:")
    assert key.read_text().strip() not in (scenario.root / "plan.json").read_text()


def test_an_edited_request_body_is_refused_and_nothing_is_sent(scenario: Scenario) -> None:
    """Editing max_scale 2 -> 70 in the saved file: apply exits 1 with one clear error
    line and creates nothing."""
    assert scenario.plan("--out", "plan.json").code == 0
    path = scenario.root / "plan.json"
    edit_plan(path, set_max_scale(70))
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    errors = [line for line in result.err.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: the plan file {path} was altered after `planner plan --out`"]
    assert names_on_server(scenario) == []


def test_an_edit_with_a_naively_recomputed_digest_is_refused(scenario: Scenario) -> None:
    """Editing the body and recomputing a plain sha256 digest does not get it applied."""
    assert scenario.plan("--out", "plan.json").code == 0
    path = scenario.root / "plan.json"
    edit_plan(path, set_max_scale(70))
    naive = hashlib.sha256(sealed_content(read_saved_plan(path))).hexdigest()
    edit_plan(path, lambda raw: raw["saved"]["seal"].update(digest=f"hmac-sha256:{naive}"))
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1 and "was altered after" in result.err
    assert names_on_server(scenario) == []


def test_apply_sends_and_records_exactly_the_reviewed_plan(scenario: Scenario) -> None:
    """An untouched saved plan applies; the server and the state hold the planned
    max_scale and the next plan is empty."""
    scenario.edit_config("max_scale = 2", "max_scale = 7")
    assert scenario.plan("--out", "plan.json").code == 0
    result = scenario.cli("apply", "plan.json")
    assert result.code == 0, result.out + result.err
    state = scenario.state()
    assert state is not None
    api = state.deployments["api"]
    assert api.managed["source_config"]["resource_spec"]["max_scale"] == 7
    live = scenario.get(api.id).source_config.resource_spec
    assert live is not None and live.max_scale == 7
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_saved_plan_applies_from_another_directory(
    scenario: Scenario, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plan --out` with relative -c and --state in dir A, then `apply /abs/plan` from
    dir B uses A's config and A's state (nothing is made in B)."""
    argv = ("-c", "planner.toml", "--state", "state/here.state.json")
    assert scenario.plan(*argv, "--out", "plan.json").code == 0
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    result = scenario.cli("apply", str(scenario.root / "plan.json"))
    assert result.code == 0, result.out + result.err
    assert names_on_server(scenario) == ["api", "worker"]
    state = LocalFileBackend(scenario.root / "state" / "here.state.json").read()
    assert state is not None and set(state.deployments) == {"api", "worker"}
    assert list(elsewhere.iterdir()) == []


def test_apply_with_another_state_refuses_the_plan(scenario: Scenario) -> None:
    """`--state` pins the state (and the key) a plan is checked against: one with no plan
    key refuses the plan, and nothing is sent."""
    assert scenario.plan("--out", "plan.json").code == 0
    result = scenario.cli("apply", "--state", "state/other.state.json", "plan.json")
    assert result.code == 1
    assert "no plan key beside the state" in result.err
    assert names_on_server(scenario) == []


def test_a_plan_sealed_for_one_state_does_not_apply_to_another(scenario: Scenario) -> None:
    """A plan sealed with one state's key is refused against another state that has its
    own key (no replay across states)."""
    assert scenario.plan("--state", "state/other.state.json", "--out", "other.json").code == 0
    assert scenario.plan("--out", "plan.json").code == 0
    result = scenario.cli("apply", "--state", "state/other.state.json", "plan.json")
    assert result.code == 1
    assert "sealed with another state's plan key" in result.err
    assert names_on_server(scenario) == []


def test_a_saved_plan_applies_from_another_directory_with_the_default_state_dir(
    scenario: Scenario, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the default relative `state/` (no PLANNER_STATE_DIR), apply from dir B still
    uses dir A's state and embedded control plane."""
    monkeypatch.delenv("PLANNER_STATE_DIR")
    assert scenario.plan("--out", "plan.json").code == 0
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    result = scenario.cli("apply", str(scenario.root / "plan.json"))
    assert list(elsewhere.iterdir()) == []
    assert result.code == 0, result.out + result.err
    assert names_on_server(scenario) == ["api", "worker"]


def test_a_secret_changed_since_the_plan_makes_it_stale(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file holds no secret value; apply re-reads it from the environment and, when it
    differs from the planned (sealed) digest, refuses the plan as stale, sending nothing."""
    assert scenario.plan("--out", "plan.json").code == 0
    assert SECRET_VALUE not in (scenario.root / "plan.json").read_text()
    monkeypatch.setenv("API_TOKEN", "sk-live-another-value")
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    assert "the plan is stale: the secret API_TOKEN of api changed since the plan" in result.err
    assert "sk-live-another-value" not in result.out + result.err
    assert names_on_server(scenario) == []


def test_a_secret_changed_for_a_plan_that_sends_none_is_stale_and_never_recorded(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A saved change that sends no secret (max_scale), yet a secret value that differs at apply
    time makes it stale (named, its value never shown); the state keeps the digest of
    the value on the server, so a plan with that value shows no secret change or drift."""
    scenario.adopt("api")
    state = scenario.state()
    assert state is not None
    recorded = state.deployments["api"].secret_digests
    scenario.edit_config("max_scale = 2", "max_scale = 7")
    assert scenario.plan("--out", "plan.json").code == 0
    monkeypatch.setenv("API_TOKEN", "sk-live-another-value")
    result = scenario.cli("apply", "plan.json", "--format", "json")
    assert result.code == 1
    assert "the secret API_TOKEN of api changed since the plan" in result.out
    assert "sk-live-another-value" not in result.out + result.err
    after = scenario.state()
    assert after is not None and after.deployments["api"].secret_digests == recorded
    monkeypatch.setenv("API_TOKEN", SECRET_VALUE)
    plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == []
    [api] = [c for c in plan["changes"] if c["name"] == "api"]
    assert [f["path"] for f in api["fields"]] == ["source_config.resource_spec.max_scale"]


def test_an_update_applies_and_records_exactly_the_planned_values(scenario: Scenario) -> None:
    """A saved update (max_scale 2 -> 7 on a managed deployment) sends the sealed PATCH;
    the server and the state then agree and the next plan is empty."""
    api = scenario.adopt("api")
    scenario.edit_config("max_scale = 2", "max_scale = 7")
    assert scenario.plan("--out", "plan.json").code == 0
    body = read_saved_plan(scenario.root / "plan.json").plan.changes[0].request_body
    assert body["source_config"]["resource_spec"]["max_scale"] == 7
    result = scenario.cli("apply", "plan.json")
    assert result.code == 0, result.out + result.err
    state = scenario.state()
    assert state is not None
    recorded = state.deployments["api"].managed["source_config"]["resource_spec"]
    live = scenario.get(api.id).source_config.resource_spec
    assert live is not None and recorded["max_scale"] == live.max_scale == 7
    assert scenario.plan("--detailed-exitcode").code == 0


def test_the_seal_is_checked_before_the_config_is_read(scenario: Scenario) -> None:
    """An edited config path is refused as an alteration: the seal is checked before the
    file the plan names is opened."""
    assert scenario.plan("--out", "plan.json").code == 0
    path = scenario.root / "plan.json"
    edit_plan(path, lambda raw: raw["saved"].update(config_path="/nonexistent/planner.toml"))
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    assert "was altered after" in result.err and "/nonexistent" not in result.err


@pytest.mark.parametrize("kind", ["fifo", "zero", "directory", "deep"])
def test_a_hostile_plan_file_is_one_error_line(scenario: Scenario, kind: str) -> None:
    """`apply PLANFILE` with a FIFO, /dev/zero, a directory or 100k nested brackets:
    one error line naming the file, exit 1, no hang, no RecursionError."""
    planfile = scenario.root / "tfplan.json"
    if kind == "fifo":
        os.mkfifo(planfile)
    elif kind == "zero":
        planfile.symlink_to("/dev/zero")
    elif kind == "directory":
        planfile.mkdir()
    else:
        planfile.write_text("[" * 100_000)
    result = scenario.cli("apply", str(planfile))
    assert result.code == 1
    assert result.err.startswith(f"Error: {planfile}: ")
    assert "internal error" not in result.err and result.err.count("\n") == 1


@pytest.mark.parametrize("kind", ["state", "database", "other", "fifo"])
def test_out_never_overwrites_what_is_not_a_saved_plan(scenario: Scenario, kind: str) -> None:
    """`--out` naming the state file, the control plane's database, any other file or a
    FIFO is refused before anything is done; the file is left byte for byte."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("max_scale = 2", "max_scale = 3")
    target = {
        "state": scenario.state_path,
        "database": scenario.db_path,
        "other": scenario.root / "notes.txt",
        "fifo": scenario.root / "pipe",
    }[kind]
    if kind == "other":
        target.write_text("keep me\n")
    if kind == "fifo":
        os.mkfifo(target)
    before = None if kind == "fifo" else target.read_bytes()
    result = scenario.plan("--out", str(target))
    assert result.code == 1
    assert f"{target} exists and is not a saved plan: not overwriting it" in result.err
    if before is not None:
        assert target.read_bytes() == before
    assert scenario.plan("--detailed-exitcode").code == 2  # state and database intact


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("state", "it is the state file: choose another --out path"),
        ("backup", "it is the state file's backup: choose another --out path"),
        ("config", "it is the config file: choose another --out path"),
        ("database", "it is the local control plane's database: choose another --out path"),
        ("sqlite", "it is a SQLite database: choose another --out path"),
        ("folder", "it is a folder: give --out the path of a file in it, e.g. --out "),
        ("device", "it is a character device, not a file `planner apply` can read back"),
    ],
)
def test_out_onto_a_file_of_the_planner_gets_a_hint_that_fits_it(
    scenario: Scenario, kind: str, said: str
) -> None:
    """`--out` naming the state (or its backup), the config, a database, a folder or
    /dev/null is refused with a hint that says what it is, never to delete it."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    other_db = scenario.root / "other.db"
    other_db.write_bytes(b"SQLite format 3\x00" + bytes(84))
    target = {
        "state": scenario.state_path,
        "backup": scenario.state_path.with_name(scenario.state_path.name + ".backup"),
        "config": scenario.config_path,
        "database": scenario.db_path,
        "sqlite": other_db,
        "folder": scenario.root / "state",
        "device": Path(os.devnull),
    }[kind]
    assert target.exists()
    result = scenario.plan("--out", str(target))
    assert result.code == 1
    assert f"{target} exists and is not a saved plan: not overwriting it" in result.err
    assert said in result.err and "delete" not in result.err


def test_out_through_a_symlink_writes_the_target_and_keeps_the_link(scenario: Scenario) -> None:
    """A symlinked --out is written through (the link stays a link), and a saved plan
    may be replaced by the next one."""
    real = scenario.root / "plans" / "real.json"
    real.parent.mkdir()
    link = scenario.root / "tfplan.json"
    link.symlink_to(real)
    assert scenario.plan("--out", str(link)).code == 0
    assert link.is_symlink() and json.loads(real.read_text())["saved"]
    assert scenario.plan("--out", str(link)).code == 0  # an earlier plan is replaced


def test_a_plan_with_errors_and_out_writes_no_state(scenario: Scenario) -> None:
    """`plan --out` whose plan has errors saves nothing: no plan file, no new state."""
    scenario.create_remote("worker")
    result = scenario.plan("--out", "tfplan.json")
    assert result.code == 1
    assert not (scenario.root / "tfplan.json").exists()
    assert not scenario.state_path.exists()


def test_a_plan_file_of_the_previous_format_is_refused_clearly(scenario: Scenario) -> None:
    """A saved plan as format 1.0 wrote it (no `drifted` keys) is refused before
    anything is sent, naming both format versions and the way out."""
    assert scenario.plan("--out", "plan.json").code == 0

    def as_1_0(raw: dict[str, Any]) -> None:
        raw["format_version"] = "1.0"
        del raw["saved"]["planner_version"]  # 1.0 files do not record it
        for change in raw["changes"]:
            for field in change["fields"]:
                del field["drifted"]

    edit_plan(scenario.root / "plan.json", as_1_0)
    for argv in (("apply", "plan.json"), ("show", "plan.json")):
        result = scenario.cli(*argv)
        assert result.code == 1
        assert "has plan format_version '1.0' (written by a planner release" in result.err
        assert "this planner (" in result.err and ") reads '1.2'" in result.err
        assert "planner plan --out" in result.err
    assert names_on_server(scenario) == []
