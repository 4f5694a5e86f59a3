"""`planner rollback` and `planner release` with the state in PostgreSQL: the hold is in
its versions (read back with `planner state pull`), and a kill -9 converges there as
with a file."""

from __future__ import annotations

import pytest

from tests.cli.conftest import BASE_CONFIG, Scenario
from tests.cli.rollback.releases import GOOD, image_of, release_twice, revisions, state_of
from tests.cli.rollback.test_rollback_killed import CLIENT, killed_at
from tests.postgres import unique_name


@pytest.fixture
def team(scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario with PLANNER_STATE a PostgreSQL URL and a state name of its own."""
    monkeypatch.setenv("PLANNER_STATE", postgres_url)
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{unique_name()}"\n')
    return scenario


def test_a_hold_is_set_and_lifted_in_postgres(team: Scenario) -> None:
    """The rollback's hold is in the current version, in format 2, and no file state is
    written; release lifts it in a later version."""
    two = release_twice(team)
    assert team.cli("rollback", "worker", "--auto-approve").code == 0
    held = state_of(team)
    assert held.format_version == 2 and held.pending == []
    hold = held.deployments["worker"].held
    assert hold is not None and hold.revision_id == two.good
    assert not (team.root / "state" / "planner.state.json").exists()
    assert team.cli("release", "worker").code == 0
    lifted = state_of(team)
    assert lifted.deployments["worker"].held is None and lifted.serial > held.serial


@pytest.mark.slow
def test_a_rollback_killed_after_its_redeploy_converges_in_postgres(team: Scenario) -> None:
    """Killed after the server answered the redeploy: the next rollback records the hold
    from the journalled intent in PostgreSQL and sends no second redeploy."""
    two = release_twice(team)
    killed_at(team, f"{CLIENT}.redeploy", "after", "rollback", "worker", "--auto-approve")
    assert [i.op for i in state_of(team).pending] == ["redeploy"]
    again = team.cli("rollback", "worker", "--auto-approve", "--lock-timeout", "5")
    assert again.code == 0, again.out + again.err
    newest, *older = revisions(team, two.deployment_id)
    assert len(older) == 2 and image_of(newest) == GOOD
    doc = state_of(team)
    hold = doc.deployments["worker"].held
    assert doc.pending == [] and hold is not None and hold.revision_id == two.good
