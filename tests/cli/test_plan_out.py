"""`planner plan --out FILE`: the saved plan file, its secrecy, and staleness checks."""

from __future__ import annotations

import asyncio
import json
import stat

from planner.cli.workspace import Workspace
from planner.errors import PlanStaleError
from planner.plan.saved import SavedPlan, check_plan_fresh, read_saved_plan
from planner.render.json import render_json
from tests.cli.conftest import SECRET_VALUE, Scenario


def check_fresh(scenario: Scenario, saved: SavedPlan) -> None:
    """What apply does before executing: re-read the state, refresh, compare."""

    async def go() -> None:
        async with Workspace.open(scenario.config_path, announce=lambda _: None) as ws:
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
    assert raw["format_version"] == "1.0" and raw["summary"]["new_revision"] == 1
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
    assert render_json(saved.plan) == scenario.plan("--format", "json").out


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
        assert any("updated_at" in line for line in error.details)
    else:
        raise AssertionError("a deployment patched after the plan must make it stale")


def test_plan_with_errors_is_not_saved(scenario: Scenario) -> None:
    """A plan with errors exits 1 and writes no plan file."""
    scenario.create_remote("worker")
    result = scenario.plan("--out", "plan.json")
    assert result.code == 1
    assert "not saved to plan.json" in result.err
    assert not (scenario.root / "plan.json").exists()
