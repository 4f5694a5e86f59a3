"""`planner plan` options: selection, --refresh-only, --detailed-exitcode, --verbose."""

from __future__ import annotations

import hashlib
import json

from tests.cli.conftest import Scenario


def planned_names(scenario: Scenario, *argv: str) -> list[str]:
    result = scenario.plan("--format", "json", *argv)
    return [change["name"] for change in json.loads(result.out)["changes"]]


def test_only_and_exclude_select_deployments(scenario: Scenario) -> None:
    """--only keeps just the named deployments; --exclude leaves them out (repeatable)."""
    assert planned_names(scenario) == ["api", "worker"]
    assert planned_names(scenario, "--only", "worker") == ["worker"]
    assert planned_names(scenario, "--exclude", "worker") == ["api"]
    assert planned_names(scenario, "--exclude", "worker", "--exclude", "api") == []


def test_detailed_exitcode(scenario: Scenario) -> None:
    """--detailed-exitcode: 2 with changes, 0 without, 1 on a plan error; 0 without it."""
    assert scenario.plan("--detailed-exitcode").code == 2
    assert scenario.plan().code == 0
    scenario.adopt("api")
    scenario.adopt("worker")
    assert scenario.plan("--detailed-exitcode").code == 0
    scenario.edit_config('acme/api"', 'acme/api-2"')
    assert scenario.plan("--detailed-exitcode").code == 1


def state_hash(scenario: Scenario) -> str:
    return hashlib.sha256(scenario.state_path.read_bytes()).hexdigest()


def test_refresh_only_plan_is_read_only_and_exits_2_until_recorded(scenario: Scenario) -> None:
    """plan --refresh-only shows the drift, exits 2 every time, and never writes the state."""
    api = scenario.adopt("api")
    drifted = scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    before = state_hash(scenario)
    for _ in range(2):
        result = scenario.plan("--refresh-only", "--detailed-exitcode")
        assert result.code == 2
        assert "api: source_config.build_on_push: false → true" in result.out
        assert "No changes. 1 drifted value to record." in result.out
        assert state_hash(scenario) == before
    after = scenario.get(api.id)
    assert (after.updated_at, after.source_config.build_on_push) == (drifted.updated_at, True)


def test_refresh_only_plan_names_the_command_that_records_it(scenario: Scenario) -> None:
    """plan --refresh-only with drift names `planner apply --refresh-only` (with the options
    given) in text, markdown and JSON; without drift it names nothing."""
    assert (
        json.loads(scenario.plan("--refresh-only", "--format", "json").out)["record_command"]
        is None
    )
    api = scenario.adopt("api")
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    command = "planner apply --refresh-only --only api"
    text = scenario.plan("--refresh-only", "--only", "api").out
    assert f"To record it into the state: {command}" in text
    markdown = scenario.plan("--refresh-only", "--only", "api", "--format", "markdown").out
    assert f"To record it into the state: `{command}`" in markdown
    plan = json.loads(scenario.plan("--refresh-only", "--only", "api", "--format", "json").out)
    assert plan["record_command"] == command
    assert "--refresh-only" not in scenario.plan().out  # a normal plan does not say it


def test_apply_refresh_only_records_drift_then_plan_exits_0(scenario: Scenario) -> None:
    """apply --refresh-only --auto-approve writes the observed value; the next check is 0."""
    api = scenario.adopt("api")
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    serial = scenario.state().serial  # type: ignore[union-attr]
    result = scenario.cli("apply", "--refresh-only", "--auto-approve")
    assert result.code == 0, result.err
    assert "Recorded what changed outside the planner" in result.out
    state = scenario.state()
    assert state is not None and state.serial == serial + 1
    recorded = state.deployments["api"]
    assert recorded.managed["source_config"]["build_on_push"] is True
    assert recorded.updated_at is not None
    assert scenario.plan("--refresh-only", "--detailed-exitcode").code == 0
    # The drift is now recorded: the next plan shows no drift, only the way back.
    plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == []
    assert {c["name"]: c["action"] for c in plan["changes"]}["api"] == "update"


def test_apply_refresh_only_needs_confirmation(scenario: Scenario) -> None:
    """Without a terminal or --auto-approve, apply --refresh-only records nothing (exit 1)."""
    api = scenario.adopt("api")
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    before = state_hash(scenario)
    result = scenario.cli("apply", "--refresh-only")
    assert result.code == 1
    assert "--auto-approve" in result.err
    assert state_hash(scenario) == before


def test_refresh_only_forgets_deployments_deleted_outside(scenario: Scenario) -> None:
    """apply --refresh-only drops the record of a deployment deleted outside the planner."""
    worker = scenario.adopt("worker")
    scenario.delete(worker.id)
    result = scenario.plan("--refresh-only")
    assert result.code == 0
    assert f"worker: deleted outside the planner (was id {worker.id})" in result.out
    assert scenario.cli("apply", "--refresh-only", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None and "worker" not in state.deployments


def test_refresh_only_records_a_rotated_secret_digest(scenario: Scenario) -> None:
    """A secret changed outside gets the digest of its observed value, never the value."""
    api = scenario.adopt("api")
    before = scenario.state().deployments["api"].secret_digests  # type: ignore[union-attr]
    scenario.patch(api.id, {"secrets": [{"name": "API_TOKEN", "value": "rotated-outside"}]})
    assert scenario.cli("apply", "--refresh-only", "--auto-approve").code == 0
    after = scenario.state().deployments["api"].secret_digests  # type: ignore[union-attr]
    assert set(after) == {"API_TOKEN"} and after != before
    assert "rotated-outside" not in scenario.state_path.read_text()


def test_refresh_only_without_drift_writes_nothing(scenario: Scenario) -> None:
    """With nothing changed outside, --refresh-only leaves the state as it is."""
    scenario.adopt("worker")
    serial = scenario.state().serial  # type: ignore[union-attr]
    result = scenario.plan("--refresh-only", "--detailed-exitcode")
    assert result.code == 0
    assert "No changes. Nothing changed outside the planner." in result.out
    assert scenario.state().serial == serial  # type: ignore[union-attr]


def test_verbose_shows_unchanged_fields(scenario: Scenario) -> None:
    """--verbose lists the unchanged managed fields of a changed deployment."""
    scenario.adopt("api")
    scenario.edit_config("build_on_push = false", "build_on_push = true")
    quiet = scenario.plan("--only", "api").out
    verbose = scenario.plan("--only", "api", "--verbose").out
    assert "repo_ref" not in quiet
    assert 'source_revision_config.repo_ref = "main"' in verbose
