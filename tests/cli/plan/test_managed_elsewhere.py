"""Managed elsewhere: what another environment's state records is not "not managed" here."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Scenario
from tests.postgres import unique_name

PER_ENV = """
[deployments.api]
name = "api-${env}"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/api:1"

[environments.dev]
[environments.staging]
"""


@pytest.fixture
def envs(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """PER_ENV as planner.toml, with `api-staging` applied by the staging state."""
    monkeypatch.delenv("PLANNER_ENV", raising=False)
    scenario.write_config(PER_ENV)
    applied = scenario.cli("apply", "--env", "staging", "--auto-approve")
    assert applied.code == 0, applied.err
    return scenario


def staging_id(scene: Scenario) -> str:
    state = json.loads((scene.root / "state" / "planner.staging.state.json").read_text())
    return str(state["deployments"]["api"]["id"])


def test_another_environments_deployment_is_not_listed_as_unmanaged(envs: Scenario) -> None:
    """dev's plan creates `api-dev` and does not offer to import `api-staging`."""
    plan = json.loads(envs.plan("--env", "dev", "--format", "json").out)
    assert plan["unmanaged"] == []
    assert [(c["name"], c["action"]) for c in plan["changes"]] == [("api", "create")]
    text = envs.plan("--env", "dev").out
    assert "api-staging" not in text and "Not recorded by this state" not in text


def test_import_all_never_adopts_another_environments_deployment(envs: Scenario) -> None:
    """`import --all` in dev finds nothing to adopt: `api-staging` is staging's."""
    result = envs.cli("import", "--all", "--env", "dev", "--generate-config", "adopted.toml")
    assert result.code == 0, result.err
    assert "No unmanaged deployment to adopt" in result.out
    assert not (envs.root / "adopted.toml").exists()


def test_declaring_another_environments_deployment_names_its_state(envs: Scenario) -> None:
    """A dev config naming `api-staging` is an error naming the staging state, not a create."""
    envs.edit_config('name = "api-${env}"', 'name = "api-staging"')
    result = envs.plan("--env", "dev")
    assert result.code == 1
    assert (
        f"api-staging already exists (id {staging_id(envs)}) and is managed by the state"
        in result.out
    )
    assert "planner.staging.state.json" in result.out
    assert envs.cli("apply", "--env", "dev", "--auto-approve").code == 1


def test_any_state_of_the_postgresql_schema_owns_its_deployments(
    scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In PostgreSQL every other state of the schema counts: it is named in the error."""
    name, envs = unique_name(), scenario
    monkeypatch.delenv("PLANNER_ENV", raising=False)
    monkeypatch.setenv("PLANNER_STATE", postgres_url)
    envs.write_config(PER_ENV + f'\n[state]\nname = "{name}"\n')
    assert envs.cli("apply", "--env", "staging", "--auto-approve").code == 0
    plan = json.loads(envs.plan("--env", "dev", "--format", "json").out)
    assert plan["unmanaged"] == [] and plan["errors"] == []
    envs.edit_config('name = "api-${env}"', 'name = "api-staging"')
    result = envs.plan("--env", "dev")
    assert result.code == 1 and f"managed by the state {name}.staging" in result.out


def test_import_refuses_a_deployment_another_state_manages(envs: Scenario) -> None:
    """`import api ID` in dev, ID being staging's `api-staging`: refused, naming the staging
    state; dev's state records nothing."""
    envs.edit_config('name = "api-${env}"', 'name = "api-staging"')
    result = envs.cli("import", "api", staging_id(envs), "--env", "dev")
    assert result.code == 1
    assert f"deployment {staging_id(envs)} (api) is managed by the state" in result.err
    assert "planner.staging.state.json" in result.err
    assert not (envs.root / "state" / "planner.dev.state.json").exists()


def test_what_a_state_it_cannot_see_records_is_not_called_never_touched(
    scenario: Scenario,
) -> None:
    """A deployment another, unrelated config's state records is beyond what the planner
    can see: the plan lists it as not recorded by this state, says that states it cannot
    see may manage it, and never claims it was never touched."""
    other = scenario.root / "other" / "team-b.toml"
    other.parent.mkdir()
    other.write_text(PER_ENV.split("[environments.dev]")[0].replace("${env}", "b"))
    assert scenario.cli("apply", "-c", str(other), "--auto-approve").code == 0
    for fmt in ("text", "markdown"):
        shown = scenario.plan("--format", fmt).out
        assert "api-b" in shown
        assert "Not recorded by this state; states this planner cannot see may manage it" in shown
        assert "never touched" not in shown.lower()
