"""Remote names: one workspace holds `support-dev` and `support-prod` of one config."""

from __future__ import annotations

import json

import pytest

from planner.api.client import ControlPlaneClient
from tests.cli.conftest import Scenario

NAMED = """
[deployments.support]
name = "support-${env}"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/support:1"

[environments.dev]
[environments.prod]
"""


@pytest.fixture
def named(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    monkeypatch.delenv("PLANNER_ENV", raising=False)
    scenario.write_config(NAMED)
    return scenario


def remote_names(scene: Scenario) -> list[str]:
    async def names(client: ControlPlaneClient) -> list[str]:
        return sorted([d.name async for d in client.iter_deployments()])

    return scene.remote(names)


def recorded_id(scene: Scenario, env: str) -> str:
    state = json.loads((scene.root / "state" / f"planner.{env}.state.json").read_text())
    return str(state["deployments"]["support"]["id"])


def test_each_environment_creates_its_own_remote_name_under_one_address(named: Scenario) -> None:
    """Two environments in one workspace: two deployments, each state keyed `support`."""
    for env in ("dev", "prod"):
        assert named.cli("apply", "--env", env, "--auto-approve").code == 0
    assert remote_names(named) == ["support-dev", "support-prod"]
    assert recorded_id(named, "dev") != recorded_id(named, "prod")
    for env in ("dev", "prod"):
        assert named.plan("--env", env, "--detailed-exitcode").code == 0


def test_changing_the_remote_name_is_an_immutable_change(named: Scenario) -> None:
    """A new `name` cannot be applied in place: the plan names both and `--replace`."""
    assert named.cli("apply", "--env", "dev", "--auto-approve").code == 0
    named.edit_config('name = "support-${env}"', 'name = "helpdesk-${env}"')
    result = named.plan("--env", "dev")
    assert result.code == 1
    assert '"support-dev" → "helpdesk-dev"' in result.out and "--replace support" in result.out
    assert named.cli("apply", "--env", "dev", "--replace", "support", "--auto-approve").code == 0
    assert remote_names(named) == ["helpdesk-dev"]


def test_a_forgotten_deployment_is_found_by_its_remote_name(named: Scenario) -> None:
    """After `state rm`, the plan finds `support-dev` and suggests importing it as `support`."""
    assert named.cli("apply", "--env", "dev", "--auto-approve").code == 0
    deployment_id = recorded_id(named, "dev")
    assert named.cli("state", "rm", "support", "--env", "dev").code == 0
    result = named.plan("--env", "dev")
    assert result.code == 1
    assert f"planner import --env dev support {deployment_id}" in result.out
    imported = named.cli("import", "support", deployment_id, "--env", "dev")
    assert imported.code == 0, imported.err
    assert named.plan("--env", "dev", "--detailed-exitcode").code == 0


def test_import_refuses_a_deployment_with_another_remote_name(named: Scenario) -> None:
    """`support` in prod is `support-prod`: `support-dev` cannot be imported there."""
    assert named.cli("apply", "--env", "dev", "--auto-approve").code == 0
    result = named.cli("import", "support", recorded_id(named, "dev"), "--env", "prod")
    assert result.code == 1
    assert "is named 'support-dev', not 'support-prod'" in result.err
