"""An empty config does not silently destroy: plan and apply refuse it without --destroy."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Scenario

EMPTY = "# every deployment was removed by mistake\n"
GUARD = "the config declares no deployments, but the state manages 2 (api, worker)"


@pytest.fixture
def applied(scenario: Scenario) -> Scenario:
    """BASE_CONFIG applied: the state manages api and worker."""
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.err
    return scenario


def test_plan_and_apply_refuse_an_empty_config(applied: Scenario) -> None:
    """plan (every format, --only too) and apply --auto-approve exit 1 with one error;
    nothing is deleted."""
    applied.write_config(EMPTY)
    for argv in (
        ("plan",),
        ("plan", "--format", "json"),
        ("plan", "--only", "api"),
        ("apply", "--auto-approve"),
    ):
        result = applied.cli(*argv)
        assert result.code == 1, argv
        assert GUARD in result.err and "planner destroy" in result.err
    state = applied.state()
    assert state is not None and sorted(state.deployments) == ["api", "worker"]


def test_destroy_still_deletes_an_emptied_config(applied: Scenario) -> None:
    """plan --destroy plans both deletes and `planner destroy` empties the state."""
    applied.write_config(EMPTY)
    plan = applied.plan("--destroy")
    assert plan.code == 0 and "2 to delete" in plan.out
    result = applied.cli("destroy", "--auto-approve")
    assert result.code == 0, result.err
    state = applied.state()
    assert state is not None and not state.deployments


def test_an_environment_whose_deployments_are_all_excluded_is_empty(scenario: Scenario) -> None:
    """`environments = ["dev"]` leaving prod with none is the same error for prod's state."""
    config = "[environments.dev]\n[environments.prod]\n" + scenario.config_path.read_text()
    scenario.write_config(config)
    assert scenario.cli("apply", "--env", "prod", "--auto-approve").code == 0
    scoped = config.replace('source = "git_host"', 'source = "git_host"\nenvironments = ["dev"]')
    scoped = scoped.replace(
        'source = "internal_docker"', 'source = "internal_docker"\nenvironments = ["dev"]'
    )
    scenario.write_config(scoped)
    result = scenario.plan("--env", "prod")
    assert result.code == 1 and GUARD in result.err
    assert scenario.plan("--env", "prod", "--destroy").code == 0


def test_a_saved_destroy_plan_of_an_emptied_config_applies(applied: Scenario) -> None:
    """`plan --destroy --out` then `apply FILE`: the saved destroy plan is not refused."""
    applied.write_config(EMPTY)
    assert applied.plan("--destroy", "--out", "destroy.json").code == 0
    result = applied.cli("apply", "destroy.json")
    assert result.code == 0, result.err
    state = applied.state()
    assert state is not None and not state.deployments
