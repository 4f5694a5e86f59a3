"""A replace that renames creates under the new remote name: a name another deployment
holds is refused at plan time (plan and apply alike, nothing sent), with or without
create_before_destroy, and the immutable-name error does not point at `--replace` then."""

from __future__ import annotations

import json

import pytest

from planner.api.models import DeploymentCreate, is_being_deleted
from tests.cli.conftest import Scenario

PER_ENV = """
[deployments.worker]
name = "worker-${env}"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:1"

[deployments.worker.lifecycle]
create_before_destroy = CBD

[environments.dev]
[environments.prod]
"""


@pytest.fixture(params=[False, True], ids=["delete-first", "create-first"])
def envs(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Scenario:
    """`worker-prod` and `worker-dev` applied, each by its environment's state (with
    create_before_destroy off, then on)."""
    monkeypatch.delenv("PLANNER_ENV", raising=False)
    scenario.write_config(PER_ENV.replace("CBD", str(request.param).lower()))
    for env in ("prod", "dev"):
        applied = scenario.cli("apply", "--env", env, "--auto-approve")
        assert applied.code == 0, applied.out + applied.err
    return scenario


def recorded_id(scene: Scenario, env: str, address: str = "worker") -> str:
    state = json.loads((scene.root / "state" / f"planner.{env}.state.json").read_text())
    return str(state["deployments"][address]["id"])


def assert_untouched(scene: Scenario, deployment_id: str) -> None:
    """DEPLOYMENT_ID still runs (no delete was sent) and dev's state still records it."""
    assert not is_being_deleted(scene.get(deployment_id).status)
    assert recorded_id(scene, "dev") == deployment_id


def test_a_replace_onto_a_name_another_state_manages_is_a_plan_error(envs: Scenario) -> None:
    """`name = "worker-prod"` in dev with `--replace worker`: the plan is an error naming
    prod's state, apply refuses it the same way, and `worker-dev` is not deleted."""
    dev_id, prod_id = recorded_id(envs, "dev"), recorded_id(envs, "prod")
    envs.edit_config('name = "worker-${env}"', 'name = "worker-prod"')
    result = envs.plan("--env", "dev", "--replace", "worker", "--format", "json")
    assert result.code == 1, result.out
    planned = json.loads(result.out)
    (error,) = planned["errors"]
    assert error["name"] == "worker"
    assert f"(id {prod_id}) and is managed by the state" in error["message"]
    assert "planner.prod.state.json" in error["message"]
    assert not [c for c in planned["changes"] if c["action"] == "replace"]
    applied = envs.cli("apply", "--env", "dev", "--replace", "worker", "--auto-approve")
    assert applied.code == 1
    assert "planner.prod.state.json" in applied.out
    assert_untouched(envs, dev_id)


@pytest.mark.slow
def test_a_replace_onto_the_name_of_an_unmanaged_deployment_is_a_plan_error(
    envs: Scenario,
) -> None:
    """A new name held by a deployment no state manages: an error naming its id, not a
    green plan whose apply deletes `worker-dev` and then fails with 409."""
    dev_id = recorded_id(envs, "dev")
    body = {"name": "worker-other", "source": "internal_docker", "source_revision_config": {}}
    create = DeploymentCreate.model_validate(body)
    outside = envs.remote(lambda client: client.create_deployment(create))
    envs.edit_config('name = "worker-${env}"', 'name = "worker-other"')
    result = envs.plan("--env", "dev", "--replace", "worker")
    assert result.code == 1, result.out
    assert f"worker-other already exists (id {outside.id}) but is not in the state" in result.out
    assert envs.cli("apply", "--env", "dev", "--replace", "worker", "--auto-approve").code == 1
    assert_untouched(envs, dev_id)


def test_the_immutable_name_hint_offers_no_replace_onto_a_taken_name(envs: Scenario) -> None:
    """Without `--replace`, the error on `name` says the new name is taken and what would
    work, instead of `--replace worker` (which could only fail)."""
    envs.edit_config('name = "worker-${env}"', 'name = "worker-prod"')
    planned = json.loads(envs.plan("--env", "dev", "--format", "json").out)
    (error,) = planned["errors"]
    assert error["path"] == "name" and error["message"].startswith("name cannot change")
    assert "--replace" not in error["hint"]
    assert recorded_id(envs, "prod") in error["hint"]
    assert 'set name back to "worker-dev"' in error["hint"]


def test_a_replace_onto_a_name_this_state_records_under_another_address_is_a_plan_error(
    scenario: Scenario,
) -> None:
    """`worker` renamed to `api`, the remote name of the address `api` the same config
    drops: the replace would create while `api` still holds the name, so it is refused."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None
    api_id = state.deployments["api"].id
    text = scenario.config_path.read_text()
    start, end = text.index("[deployments.api]"), text.index("[deployments.worker]")
    scenario.config_path.write_text(text[:start] + text[end:])
    scenario.edit_config("[deployments.worker]", '[deployments.worker]\nname = "api"')
    result = scenario.plan("--replace", "worker", "--format", "json")
    assert result.code == 1, result.out
    errors = {e["name"]: e["message"] for e in json.loads(result.out)["errors"]}
    assert f"the remote name of api (id {api_id})" in errors["worker"]
    assert scenario.cli("apply", "--replace", "worker", "--auto-approve").code == 1
    assert scenario.state() == state


@pytest.mark.slow
def test_a_saved_replace_whose_new_name_was_taken_since_is_stale(envs: Scenario) -> None:
    """`plan --out` of a replace onto a free name, then a deployment takes that name:
    `apply PLANFILE` refuses the plan as stale, naming the holder, and deletes nothing."""
    dev_id = recorded_id(envs, "dev")
    envs.edit_config('name = "worker-${env}"', 'name = "worker-blue"')
    planned = envs.plan("--env", "dev", "--replace", "worker", "--out", "replace.plan")
    assert planned.code == 0, planned.out + planned.err
    body = {"name": "worker-blue", "source": "internal_docker", "source_revision_config": {}}
    create = DeploymentCreate.model_validate(body)
    holder = envs.remote(lambda client: client.create_deployment(create))
    applied = envs.cli("apply", "replace.plan")
    assert applied.code == 1
    assert f"deployment {holder.id} holds worker's new remote name since the plan" in applied.err
    assert_untouched(envs, dev_id)
