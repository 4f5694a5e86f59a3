"""`planner rollback`, `status` and `history` at their edges: a rollback after a release
never goes forward, `--to` by id prefix, a mistyped name, unset secret variables, the
options repeated in suggested commands, and a wait that times out."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import GOOD, image_of, recorded, release_twice, revisions


def rolled_back_and_released(scenario: Scenario) -> tuple[str, str, str]:
    """worker released twice, rolled back, released: (good, bad, active) revision ids."""
    two = release_twice(scenario)
    assert scenario.cli("rollback", "worker", "--auto-approve").code == 0
    assert scenario.cli("release", "worker").code == 0
    active = recorded(scenario).active_revision_id
    assert active is not None and active not in (two.good, two.bad)
    return two.good, two.bad, active


def test_a_rollback_after_a_release_does_not_go_forward(scenario: Scenario) -> None:
    """Rolled back to 1.0.0 and released (the config not applied): rolling back again
    finds nothing earlier than 1.0.0, names what the active revision redeploys, and
    sends nothing (the bad 1.0.1 is never redeployed by default)."""
    good, _, active = rolled_back_and_released(scenario)
    count = len(revisions(scenario, recorded(scenario).id))
    result = scenario.cli("rollback", "worker", "--auto-approve")
    assert result.code == 1
    assert f"no earlier DEPLOYED revision to roll back to (active revision {active} " in (
        result.err
    )
    assert f"redeploys {good})" in result.err
    assert len(revisions(scenario, recorded(scenario).id)) == count


def test_to_a_newer_revision_by_its_prefix_goes_forward_and_says_so(scenario: Scenario) -> None:
    """`--to` the first 8 characters of the bad release's id is accepted; the preview and
    the JSON document say the rollback goes forward."""
    _, bad, _ = rolled_back_and_released(scenario)
    result = scenario.cli(
        "rollback", "worker", "--to", bad[:8], "--auto-approve", "--format", "json"
    )
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert (document["revision_id"], document["forward"]) == (bad, True)
    assert "this goes forward" in result.err
    assert image_of(revisions(scenario, recorded(scenario).id)[0]) != GOOD


def test_a_mistyped_name_suggests_the_close_one_with_its_own_code(scenario: Scenario) -> None:
    """`rollback workr`: exit 1, `did you mean 'worker'`, and in JSON the code
    `unknown-deployment`."""
    release_twice(scenario)
    text = scenario.cli("rollback", "workr", "--auto-approve")
    assert text.code == 1 and "did you mean 'worker'?" in text.err
    result = scenario.cli("rollback", "workr", "--auto-approve", "--format", "json")
    assert json.loads(result.out)["error"]["code"] == "unknown-deployment"


def test_rollback_status_and_history_need_no_secret_variable(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With API_TOKEN (read only by api's secrets) unset, rolling worker back, status
    and history work; status still compares api's secret with its recorded digest."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    release_twice(scenario)
    monkeypatch.delenv("API_TOKEN")
    rolled = scenario.cli("rollback", "worker", "--auto-approve")
    assert rolled.code == 0, rolled.err
    status = scenario.cli("status", "--format", "json")
    assert status.code == 0, status.err
    by_name = {row["name"]: row for row in json.loads(status.out)}
    assert (by_name["api"]["drift"], by_name["worker"]["drift"]) == (False, False)
    history = scenario.cli("history", "worker")
    assert history.code == 0, history.err


def test_status_and_history_repeat_the_state_option_in_release(scenario: Scenario) -> None:
    """Given `--state PATH`, the `planner release` that status and history suggest for a
    held deployment carries it, as plan and rollback do."""
    release_twice(scenario)
    state = str(scenario.state_path)
    assert scenario.cli("rollback", "worker", "--auto-approve", "--state", state).code == 0
    status = scenario.cli("status", "--state", state)
    assert f"planner release --state {state} NAME" in status.out
    history = scenario.cli("history", "worker", "--state", state)
    assert f"planner release --state {state} worker" in history.out


def test_a_wait_that_times_out_says_so(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `--wait-timeout` shorter than the rollout: the rollback did not complete, and
    the line after says the revision was still rolling out when the wait ran out."""
    release_twice(scenario)
    monkeypatch.setenv("PLANNER_EMBEDDED_DEPLOY_SECONDS", "5")
    result = scenario.cli("rollback", "worker", "--auto-approve", "--wait-timeout", "0.2")
    assert result.code == 1
    assert "Rollback of worker did not complete:" in result.out
    assert "(--wait-timeout)" in result.out and "failed (failed)" not in result.out
