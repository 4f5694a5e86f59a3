"""Moves: renaming an address keeps the deployment when the remote name and source stay."""

from __future__ import annotations

import json

import pytest

from tests.cli.apply.test_apply_killed import apply_killed_after
from tests.cli.conftest import Scenario
from tests.event_lines import event_lines

WORKER = "[deployments.worker]"


def recorded(scene: Scenario) -> dict[str, str]:
    state = scene.state()
    assert state is not None
    return {address: r.id for address, r in state.deployments.items()}


def test_a_renamed_address_with_the_remote_name_kept_is_a_move(scenario: Scenario) -> None:
    """`worker` -> `runner` with `name = "worker"`: the plan shows a move, apply re-keys it."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = recorded(scenario)
    scenario.edit_config(WORKER, '[deployments.runner]\nname = "worker"')
    scenario.edit_config("[deployments.worker.", "[deployments.runner.")
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 2, result.out + result.err
    assert "worker -> runner (moved)" in result.out
    assert "to move" in result.out and "create" not in result.out.split("Plan:")[0]
    planned = json.loads(scenario.plan("--format", "json").out)
    (change,) = [c for c in planned["changes"] if c["name"] == "runner"]
    assert change["moved_from"] == "worker" and change["action"] == "no_op"
    assert planned["summary"]["moved"] == 1 and planned["summary"]["create"] == 0
    applied = scenario.cli("apply", "--auto-approve")
    assert applied.code == 0 and "1 moved" in applied.out
    assert recorded(scenario) == {"api": before["api"], "runner": before["worker"]}
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_renamed_address_without_a_remote_name_is_delete_and_create(
    scenario: Scenario,
) -> None:
    """Without `name`, the remote name follows the address: a new deployment, no move."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config(WORKER, "[deployments.runner]")
    scenario.edit_config("[deployments.worker.", "[deployments.runner.")
    planned = json.loads(scenario.plan("--format", "json").out)
    actions = {c["name"]: c["action"] for c in planned["changes"]}
    assert actions["runner"] == "create" and actions["worker"] == "delete"
    assert planned["summary"]["moved"] == 0
    assert scenario.cli("apply", "--auto-approve").code == 0
    assert set(recorded(scenario)) == {"api", "runner"}


def test_a_move_with_another_change_plans_that_change_on_the_moved_address(
    scenario: Scenario,
) -> None:
    """A move and a new image: one new revision of the same deployment, under its new key."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = recorded(scenario)
    scenario.edit_config(WORKER, '[deployments.runner]\nname = "worker"')
    scenario.edit_config("[deployments.worker.", "[deployments.runner.")
    scenario.edit_config("worker:1.0.0", "worker:1.1.0")
    result = scenario.plan()
    assert "worker -> runner (moved), will get a new revision" in result.out
    assert scenario.cli("apply", "--auto-approve").code == 0
    assert recorded(scenario)["runner"] == before["worker"]
    live = scenario.get(before["worker"])
    assert live.source_revision_config.image_uri == "registry.example.com/acme/worker:1.1.0"
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_move_with_an_immutable_change_is_an_error_on_the_moved_address(
    scenario: Scenario,
) -> None:
    """A move does not hide an immutable change: the error names the new address."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("[deployments.api]", '[deployments.gateway]\nname = "api"')
    for table in ("source_config]", "source_config.resource_spec]", "source_revision_config]"):
        scenario.edit_config(f"[deployments.api.{table}", f"[deployments.gateway.{table}")
    scenario.edit_config("[deployments.api.secrets]", "[deployments.gateway.secrets]")
    scenario.edit_config("acme/api", "acme/api-v2")
    planned = json.loads(scenario.plan("--format", "json").out)
    assert [c["moved_from"] for c in planned["changes"] if c["name"] == "gateway"] == ["api"]
    (error,) = planned["errors"]
    assert error["name"] == "gateway" and error["path"] == "source_config.repo_url"
    assert scenario.cli("apply", "--auto-approve").code == 1


def test_a_saved_plan_of_a_move_applies(scenario: Scenario) -> None:
    """`plan --out` of a move, then `apply PLANFILE`: not stale, the record moves."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = recorded(scenario)
    scenario.edit_config(WORKER, '[deployments.runner]\nname = "worker"')
    scenario.edit_config("[deployments.worker.", "[deployments.runner.")
    assert scenario.plan("--out", "move.plan").code == 0
    applied = scenario.cli("apply", "move.plan")
    assert applied.code == 0, applied.err
    assert recorded(scenario)["runner"] == before["worker"]
    assert scenario.plan("--detailed-exitcode").code == 0


def rename_worker_to_runner(scene: Scenario) -> None:
    """`[deployments.worker]` becomes `[deployments.runner]`, keeping `name = "worker"`."""
    scene.edit_config(WORKER, '[deployments.runner]\nname = "worker"')
    scene.edit_config("[deployments.worker.", "[deployments.runner.")


@pytest.mark.slow
def test_a_move_carries_an_interrupted_apply_s_journal_to_the_new_address(
    scenario: Scenario,
) -> None:
    """A PATCH an interrupted apply sent (kill -9) for `worker`, then the address renamed:
    the plan reports it recovered under `runner`, not as drift, and the apply that moves
    the record leaves no journal entry behind under either address."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("worker:1.0.0", "worker:1.0.1")
    apply_killed_after(scenario, "patch_deployment")
    rename_worker_to_runner(scenario)
    planned = json.loads(scenario.plan("--format", "json").out)
    assert planned["drift"] == []
    assert [(r["name"], r["operation"]) for r in planned["recovered"]] == [("runner", "update")]
    (change,) = [c for c in planned["changes"] if c["name"] == "runner"]
    assert change["moved_from"] == "worker"
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None and state.pending == []
    assert scenario.plan("--detailed-exitcode").code == 0


def test_apply_events_report_every_change_of_a_plan_with_moves(scenario: Scenario) -> None:
    """A move alone (`worker -> runner`) and a move with an update (`api -> gateway`):
    `apply --format json` ends each with an operation event carrying `moved_from` (the
    lone move's status `moved`, action `no_op`), and the summary counts 2 moved."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    rename_worker_to_runner(scenario)
    scenario.edit_config("[deployments.api]", '[deployments.gateway]\nname = "api"')
    for table in ("source_config]", "source_config.resource_spec]", "source_revision_config]"):
        scenario.edit_config(f"[deployments.api.{table}", f"[deployments.gateway.{table}")
    scenario.edit_config("[deployments.api.secrets]", "[deployments.gateway.secrets]")
    scenario.edit_config("max_scale = 2", "max_scale = 3")
    planned = json.loads(scenario.plan("--format", "json").out)
    moves = {c["name"]: (c["action"], c["moved_from"]) for c in planned["changes"]}
    assert moves == {"gateway": ("new_revision", "api"), "runner": ("no_op", "worker")}
    result = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert result.code == 0, result.out + result.err
    events = event_lines(result.out)
    ends = {e["deployment"]: e for e in events if e["type"] == "operation"}
    assert {n: (e["action"], e["moved_from"]) for n, e in ends.items()} == moves
    assert ends["runner"]["status"] == "moved" and ends["runner"]["outcome"] == "succeeded"
    assert events[-1]["counts"]["moved"] == 2


def test_a_rename_to_another_source_keeping_the_name_is_refused_alike_by_plan_and_apply(
    scenario: Scenario,
) -> None:
    """`worker` -> `runner` with `name = "worker"` but another source is not a move: the
    create would collide with the name `worker` holds, so plan, apply and a saved plan all
    refuse it with one error, and nothing is sent."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = recorded(scenario)
    old = scenario.config_path.read_text()
    worker = old[old.index(WORKER) :]
    runner = (
        '[deployments.runner]\nname = "worker"\nsource = "internal_source"\n\n'
        "[deployments.runner.source_revision_config]\n"
        'source_tarball_path = "uploads/worker.tgz"\nagent_config_path = "agent.json"\n'
    )
    scenario.config_path.write_text(old.replace(worker, runner))
    planned = scenario.plan("--detailed-exitcode")
    assert planned.code == 1, planned.out + planned.err
    assert "runner would be created as worker, the remote name of worker" in planned.out
    applied = scenario.cli("apply", "--auto-approve")
    assert applied.code == 1
    assert "runner would be created as worker, the remote name of worker" in applied.out
    assert "already exists" not in applied.out + applied.err
    assert scenario.plan("--out", "p.json").code == 1
    assert recorded(scenario) == before


@pytest.mark.parametrize("how", ["apply", "saved plan"])
def test_state_mv_with_the_table_left_as_is_is_moved_back_alike_by_plan_and_apply(
    scenario: Scenario, how: str
) -> None:
    """`state mv worker runner` and the config not renamed (no `name`: the remote name
    is `worker`): `runner` left the config and `worker` names the same deployment, so
    plan, apply and a saved plan all move it back; nothing is created or deleted."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = recorded(scenario)
    assert scenario.cli("state", "mv", "worker", "runner").code == 0
    planned = scenario.plan("--detailed-exitcode")
    assert planned.code == 2, planned.out + planned.err
    assert "runner -> worker (moved)" in planned.out
    assert "0 to create" in planned.out and "0 to delete" in planned.out
    if how == "apply":
        applied = scenario.cli("apply", "--auto-approve")
    else:
        assert scenario.plan("--out", "back.plan").code == 0
        applied = scenario.cli("apply", "back.plan")
    assert applied.code == 0, applied.out + applied.err
    assert "1 moved" in applied.out and "0 created" in applied.out
    assert recorded(scenario) == before
    assert scenario.plan("--detailed-exitcode").code == 0
