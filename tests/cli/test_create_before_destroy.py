"""lifecycle.create_before_destroy: a replace that renames creates first, deletes after."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Scenario

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


def test_create_before_destroy_with_the_same_remote_name_is_a_plan_error(
    blue: Scenario,
) -> None:
    """Without a new remote name the two would collide: the plan says so, naming it."""
    result = blue.plan("--replace", "worker", "--format", "json")
    assert result.code == 1
    (error,) = json.loads(result.out)["errors"]
    assert error["name"] == "worker" and error["path"] == "lifecycle.create_before_destroy"
    assert "'worker-blue' stays the same" in error["message"]
    assert blue.cli("apply", "--replace", "worker", "--auto-approve").code == 1
    assert blue.get(worker_id(blue)).status != "AWAITING_DELETE"
