"""A plan saved with `--state postgresql://user:PASSWORD@host/db` can be shown and applied
with the command the planner prints: it repeats `--state` without the password and says
where the password comes from, and a password-less URL naming the database of
$PLANNER_STATE connects with $PLANNER_STATE's password."""

from __future__ import annotations

import pytest

from planner.secrets import url_without_password
from tests.cli.conftest import BASE_CONFIG, Scenario
from tests.postgres import unique_name, url_password


@pytest.fixture
def team(scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario with a PostgreSQL state of its own, no password in the environment."""
    for variable in ("PLANNER_STATE", "PGPASSWORD", "PGPASSFILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("PGPASSFILE", str(scenario.root / "no.pgpass"))
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{unique_name()}"\n')
    return scenario


def test_the_printed_apply_command_repeats_the_state_and_says_where_its_password_comes_from(
    team: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plan --out` prints `planner apply PLANFILE --state URL-WITHOUT-PASSWORD` and names
    PLANNER_STATE, PGPASSWORD and ~/.pgpass; with PLANNER_STATE holding the full URL, that
    very command (and `show` with the same `--state`) works."""
    spoken = url_without_password(postgres_url)
    saved = team.plan("--out", "plan.json", "--state", postgres_url)
    assert saved.code == 0, saved.err
    command = f"planner apply --state {spoken} plan.json"
    assert f"To apply exactly this plan: {command}" in saved.out
    for source in ("PLANNER_STATE", "PGPASSWORD", "~/.pgpass"):
        assert source in saved.out
    monkeypatch.setenv("PLANNER_STATE", postgres_url)
    shown = team.cli("show", "plan.json", "--state", spoken)
    assert shown.code == 0, shown.err
    applied = team.cli(*command.split()[1:], "--auto-approve")
    assert applied.code == 0, applied.err
    assert "Apply complete" in applied.out


def test_a_saved_plan_without_the_password_says_how_to_give_it(
    team: Scenario, postgres_url: str
) -> None:
    """`planner show PLANFILE` of a plan saved with a password, none given now: the error
    says to set PLANNER_STATE to the full URL (or PGPASSWORD, ~/.pgpass)."""
    password = url_password(postgres_url)
    if password is None:
        pytest.skip("the test server trusts the role: a URL without a password connects")
    assert team.plan("--out", "plan.json", "--state", postgres_url).code == 0
    shown = team.cli("show", "plan.json")
    assert shown.code != 0
    assert "PLANNER_STATE" in shown.err
    assert password not in shown.err


def test_show_help_says_it_reads_the_state_for_the_seal(team: Scenario) -> None:
    """`planner show --help` does not promise "no network": it reads the plan key in the
    state (a PostgreSQL state: its database) to check the seal."""
    with pytest.raises(SystemExit):
        team.cli("show", "--help")
    text = team.capsys.readouterr().out
    assert "No network" not in text
    assert "database" in text
