"""`planner release NAME`: the hold lifted (a state write, nothing sent), the config's
changes planned again as changes (not drift), and the refusals."""

from __future__ import annotations

import json

from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import BAD, recorded, release_twice, revisions, state_of


def test_release_lifts_the_hold_and_the_plan_shows_the_config_again(scenario: Scenario) -> None:
    """After rollback and release the state holds no hold and sends nothing, and the
    next plan brings the config's release back as a new revision of worker, not as
    drift: the rollback recorded the image it redeployed as applied."""
    two = release_twice(scenario)
    assert scenario.cli("rollback", "worker", "--auto-approve").code == 0
    held = recorded(scenario).held
    count = len(revisions(scenario, two.deployment_id))
    result = scenario.cli("release", "worker")
    assert result.code == 0, result.err
    assert recorded(scenario).held is None
    assert held is not None and f"it was held at revision {held.revision_id}" in result.out
    assert len(revisions(scenario, two.deployment_id)) == count
    plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == []
    [change] = [c for c in plan["changes"] if c["name"] == "worker"]
    assert change["action"] == "new_revision"
    assert [(f["path"], f["after"]) for f in change["fields"]] == [
        ("source_revision_config.image_uri", BAD)
    ]


def test_releasing_a_deployment_that_is_not_held_is_refused(scenario: Scenario) -> None:
    """A managed deployment without a hold: exit 1, the hint names the rollback command."""
    release_twice(scenario)
    serial = state_of(scenario).serial
    result = scenario.cli("release", "worker")
    assert result.code == 1
    assert "worker is not held" in result.err and "planner rollback worker" in result.err
    assert state_of(scenario).serial == serial


def test_releasing_an_unmanaged_name_is_refused(scenario: Scenario) -> None:
    """A name the state does not manage: exit 1, the managed names listed."""
    release_twice(scenario)
    result = scenario.cli("release", "nope")
    assert result.code == 1
    assert "nope is not in the state" in result.err and "worker" in result.err


def test_releasing_without_a_state_is_refused(scenario: Scenario) -> None:
    """No state yet: exit 1 naming where it was looked for; no lock file is left."""
    result = scenario.cli("release", "worker")
    assert result.code == 1
    assert "no state file at" in result.err
    assert not list((scenario.root / "state").glob("*.lock*"))


def test_the_suggested_commands_repeat_the_options_given(scenario: Scenario) -> None:
    """With -c and --state given, the release command the rollback suggests and the
    rollback command a refused release suggests repeat them."""
    config = scenario.root / "conf" / "app.toml"
    config.parent.mkdir()
    config.write_text(scenario.config_path.read_text(encoding="utf-8"), encoding="utf-8")
    scenario.config_path = config
    state = str(scenario.root / "team.state.json")
    words = ("-c", str(config), "--state", state)
    assert scenario.cli("apply", "--auto-approve", "--only", "worker", *words).code == 0
    scenario.edit_config("worker:1.0.0", "worker:1.0.1")
    assert scenario.cli("apply", "--auto-approve", "--only", "worker", *words).code == 0
    rolled = scenario.cli("rollback", "worker", "--auto-approve", *words)
    assert f"`planner release -c {config} --state {state} worker`" in rolled.out
    assert scenario.cli("release", "worker", *words).code == 0
    refused = scenario.cli("release", "worker", *words)
    assert f"`planner rollback -c {config} --state {state} worker`" in refused.err
