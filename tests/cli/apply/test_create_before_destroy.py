"""lifecycle.create_before_destroy: a replace that renames creates first, deletes after."""

from __future__ import annotations

import json

import pytest

from planner.api.models import is_being_deleted
from tests.cli.apply.test_apply_killed import apply_killed_after
from tests.cli.conftest import Scenario
from tests.event_lines import event_lines

BLUE_GREEN = """
[deployments.worker]
name = "worker-blue"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:1"

[deployments.worker.lifecycle]
create_before_destroy = true
"""
DEPLOY_SECONDS = 0.3  # an image is not built: its revision deploys for this long


@pytest.fixture
def blue(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """`worker-blue` applied; deletions stay visible (AWAITING_DELETE) for a minute."""
    monkeypatch.setenv("PLANNER_EMBEDDED_DEPLOY_SECONDS", str(DEPLOY_SECONDS))
    monkeypatch.setenv("PLANNER_EMBEDDED_DELETE_SECONDS", "60")
    scenario.write_config(BLUE_GREEN)
    assert scenario.cli("apply", "--auto-approve").code == 0
    return scenario


def worker_id(scene: Scenario) -> str:
    state = scene.state()
    assert state is not None
    return state.deployments["worker"].id


def test_the_new_deployment_is_deployed_before_the_old_one_is_deleted(blue: Scenario) -> None:
    """The server saw `worker-green` created, built and deployed before the delete of
    `worker-blue`; the state records the new one and the next plan is empty."""
    old_id = worker_id(blue)
    blue.edit_config('name = "worker-blue"', 'name = "worker-green"')
    planned = blue.plan("--replace", "worker")
    assert planned.code == 0, planned.out
    assert "worker will be replaced (created first, then the old one deleted)" in planned.out
    change = json.loads(blue.plan("--replace", "worker", "--format", "json").out)["changes"][0]
    assert change["action"] == "replace" and change["create_before_destroy"] is True
    applied = blue.cli("apply", "--replace", "worker", "--auto-approve")
    assert applied.code == 0, applied.out + applied.err
    new_id = worker_id(blue)
    old, new = blue.get(old_id), blue.get(new_id)
    assert (old.name, old.status) == ("worker-blue", "AWAITING_DELETE")
    assert new.name == "worker-green" and new.latest_revision_id == new.active_revision_id
    # the delete (the old one's last update) came after the new revision was deployed
    assert old.updated_at.timestamp() >= new.created_at.timestamp() + DEPLOY_SECONDS
    assert blue.plan("--detailed-exitcode").code == 0


def test_the_immutable_name_hint_says_the_replace_creates_first(blue: Scenario) -> None:
    """Under create_before_destroy the error on a new `name` offers `--replace worker` as
    what it is: the new deployment created first, the old one deleted after."""
    blue.edit_config('name = "worker-blue"', 'name = "worker-green"')
    planned = json.loads(blue.plan("--format", "json").out)
    (error,) = planned["errors"]
    assert error["path"] == "name" and "--replace worker" in error["hint"]
    assert "create 'worker-green' first, then delete 'worker-blue'" in error["hint"]
    assert "delete and re-create" not in error["hint"]


def test_create_before_destroy_with_the_same_remote_name_is_a_plan_error(
    blue: Scenario,
) -> None:
    """Without a new remote name the two would collide: the plan says so, naming it."""
    result = blue.plan("--replace", "worker", "--format", "json")
    assert result.code == 1
    planned = json.loads(result.out)
    (error,) = planned["errors"]
    assert error["name"] == "worker" and error["path"] == "lifecycle.create_before_destroy"
    assert not [c for c in planned["changes"] if c["action"] == "replace"]  # no contradiction
    assert "'worker-blue' stays the same" in error["message"]
    assert blue.cli("apply", "--replace", "worker", "--auto-approve").code == 1
    assert not is_being_deleted(blue.get(worker_id(blue)).status)


def live_ids(scene: Scenario) -> set[str]:
    """The ids of the deployments running on the server (not being deleted)."""
    listed = scene.remote(lambda client: client.list_deployments())
    return {d.id for d in listed.resources if not is_being_deleted(d.status)}


def assert_nothing_forgotten(scene: Scenario) -> None:
    """Every running deployment is recorded, or journalled as a create of its address."""
    state = scene.state()
    assert state is not None
    recorded = {r.id for r in state.deployments.values()}
    journalled = {i.name for i in state.pending if i.op == "create"}
    for deployment_id in live_ids(scene) - recorded:
        assert "worker" in journalled, f"{deployment_id} is running and not in the state"


def test_a_failed_new_revision_keeps_the_old_deployment_recorded(blue: Scenario) -> None:
    """A new revision that fails leaves the old deployment running and recorded (deposed);
    the next plan re-submits the new one and deletes the old one after it, an apply that
    fails again keeps it, and the one that succeeds converges."""
    old_id = worker_id(blue)
    blue.edit_config('name = "worker-blue"', 'name = "worker-green"')
    blue.edit_config("worker:1", "worker:fail-deploy")
    assert blue.cli("apply", "--replace", "worker", "--auto-approve").code == 1
    deposed = f"worker~deposed-{old_id}"
    state = blue.state()
    assert state is not None and state.deployments[deposed].id == old_id
    assert blue.get(old_id).status != "AWAITING_DELETE"
    plan = json.loads(blue.plan("--format", "json").out)
    actions = {c["name"]: c["action"] for c in plan["changes"]}
    assert actions == {"worker": "new_revision", deposed: "delete"}
    again = blue.cli("apply", "--auto-approve", "--format", "json")
    assert again.code == 1  # still failing: the old one stays
    ends = {e["deployment"]: e for e in event_lines(again.out) if e["type"] == "operation"}
    assert (ends["worker"]["outcome"], ends[deposed]["outcome"]) == ("failed", "not started")
    assert ends[deposed]["error"] == "kept: worker was not deployed"
    assert blue.get(old_id).status != "AWAITING_DELETE"
    assert_nothing_forgotten(blue)
    blue.edit_config("worker:fail-deploy", "worker:2")
    assert blue.cli("apply", "--auto-approve").code == 0
    assert blue.get(old_id).status == "AWAITING_DELETE"
    assert deposed not in (blue.state() or state).deployments
    assert blue.plan("--detailed-exitcode").code == 0


@pytest.mark.slow
@pytest.mark.parametrize("method", ["create_deployment", "delete_deployments"])
def test_a_killed_create_before_destroy_forgets_no_deployment(blue: Scenario, method: str) -> None:
    """A kill -9 right after the create, or after the old one's delete, leaves
    every running deployment recorded (or its create journalled), and the next apply
    converges: the new one deployed and recorded, the old one deleted."""
    old_id = worker_id(blue)
    blue.edit_config('name = "worker-blue"', 'name = "worker-green"')
    apply_killed_after(blue, method, "--replace", "worker")
    assert_nothing_forgotten(blue)
    result = blue.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    state = blue.state()
    assert state is not None and list(state.deployments) == ["worker"] and state.pending == []
    new = blue.get(state.deployments["worker"].id)
    assert new.name == "worker-green" and new.active_revision_id == new.latest_revision_id
    assert blue.get(old_id).status == "AWAITING_DELETE"
    assert blue.plan("--detailed-exitcode").code == 0


@pytest.mark.parametrize("how", ["apply", "saved plan"])
def test_a_reverted_create_before_destroy_moves_the_old_deployment_back(
    blue: Scenario, how: str
) -> None:
    """After a failed create-before-destroy, the config reverted to `worker-blue`: the
    error on `name` says how to go back (`state rm worker`); after it, the deposed record
    is the deployment `worker` names again, so plan, apply and a saved plan all move it
    back (no "already exists" error, no import hint that `import` refuses);
    `worker-blue` keeps running under its id."""
    old_id = worker_id(blue)
    blue.edit_config('name = "worker-blue"', 'name = "worker-green"')
    blue.edit_config("worker:1", "worker:fail-deploy")
    assert blue.cli("apply", "--replace", "worker", "--auto-approve").code == 1
    blue.write_config(BLUE_GREEN)
    deposed = f"worker~deposed-{old_id}"
    (error,) = json.loads(blue.plan("--format", "json").out)["errors"]
    assert error["path"] == "name" and "--replace" not in error["hint"]
    assert f"to go back to {deposed}, `planner state rm worker`" in error["hint"]
    assert blue.cli("state", "rm", "worker").code == 0
    planned = blue.plan("--detailed-exitcode")
    assert planned.code == 2, planned.out + planned.err
    assert f"{deposed} -> worker (moved)" in planned.out
    assert "0 to create" in planned.out and "0 to delete" in planned.out
    if how == "apply":
        applied = blue.cli("apply", "--auto-approve")
    else:
        assert blue.plan("--out", "revert.plan").code == 0
        applied = blue.cli("apply", "revert.plan")
    assert applied.code == 0, applied.out + applied.err
    assert "1 moved" in applied.out
    assert worker_id(blue) == old_id and not is_being_deleted(blue.get(old_id).status)
    state = blue.state()
    assert state is not None and list(state.deployments) == ["worker"]
    after = json.loads(blue.plan("--format", "json").out)
    assert {c["action"] for c in after["changes"]} == {"no_op"} and after["errors"] == []
