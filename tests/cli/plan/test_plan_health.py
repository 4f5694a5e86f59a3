"""Day-2 scenarios through the CLI: failed rollouts, rollouts in progress, unmanaged
deployments, narrowed plans, against the embedded control plane's failure triggers."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import pytest

from planner.api.models import Deployment, DeploymentCreate
from tests.cli.conftest import Scenario


def settle(scenario: Scenario) -> None:
    """Let every revision of the embedded plane (0.05 s phases) reach its final status:
    until a plan lists no rollout in progress (a loaded machine may take a while)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if not json.loads(scenario.plan("--format", "json").out).get("rollouts"):
            return
    raise AssertionError("revisions still in progress after 30 s")


def state_hash(scenario: Scenario) -> str:
    return hashlib.sha256(scenario.state_path.read_bytes()).hexdigest()


def test_failed_rollout_plan_exits_2_then_fix_apply_and_plan_empty(scenario: Scenario) -> None:
    """fail-deploy -> plan shows new_revision naming the failed revision (exit 2) ->
    fix the config -> apply -> the plan is empty (exit 0)."""
    scenario.edit_config("worker:1.0.0", "worker-fail-deploy:1.0.0")
    assert scenario.cli("apply", "--auto-approve").code == 1
    settle(scenario)
    worker = scenario.state().deployments["worker"]  # type: ignore[union-attr]
    failed = scenario.get(worker.id).latest_revision_id
    before = state_hash(scenario)
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 2, result.out + result.err
    assert "↻ worker will get a new revision" in result.out
    assert f"latest revision {failed} is DEPLOY_FAILED" in result.out
    change = json_changes(scenario)["worker"]
    assert change["action"] == "new_revision" and "DEPLOY_FAILED" in change["reason"]
    markdown = scenario.plan("--format", "markdown").out
    assert f"# reason: latest revision {failed} is DEPLOY_FAILED" in markdown
    assert state_hash(scenario) == before
    scenario.edit_config("worker-fail-deploy:1.0.0", "worker:1.0.1")
    applied = scenario.cli("apply", "--auto-approve")
    assert applied.code == 0, applied.out + applied.err
    settle(scenario)
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 0, result.out
    assert "No changes. The deployments match the configuration." in result.out


def test_an_unchanged_failed_revision_is_submitted_again_by_one_patch(scenario: Scenario) -> None:
    """A revision that failed with the config unchanged: apply sends one PATCH that makes
    a new revision (here it fails again: the trigger is still in the config)."""
    scenario.edit_config("worker:1.0.0", "worker-fail-build:1.0.0")
    scenario.cli("apply", "--auto-approve")
    settle(scenario)
    worker = scenario.state().deployments["worker"]  # type: ignore[union-attr]
    first = scenario.get(worker.id).latest_revision_id
    result = scenario.cli("apply", "--auto-approve", "--only", "worker")
    assert result.code == 1
    assert "BUILD_FAILED" in result.out
    assert scenario.get(worker.id).latest_revision_id != first
    revisions = scenario.remote(lambda client: client.list_revisions(worker.id))
    assert len(revisions) == 2


def test_a_rollout_in_progress_is_shown_and_not_a_change(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision still building is listed as in progress, never re-submitted and never
    called a match; --detailed-exitcode stays 0 (apply would send nothing)."""
    monkeypatch.setenv("PLANNER_EMBEDDED_BUILD_SECONDS", "60")
    assert scenario.cli("apply", "--auto-approve", "--no-wait").code == 0
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 0, result.out
    assert "Rollouts in progress" in result.out
    assert "in progress: not converged yet." in result.out
    assert "match the configuration" not in result.out
    rollouts = json.loads(scenario.plan("--format", "json").out)["rollouts"]
    assert {r["name"] for r in rollouts} <= {"api", "worker"} and rollouts


def test_an_unmanaged_deployment_is_listed_never_an_error(scenario: Scenario) -> None:
    """A deployment made by hand is listed with its import command (with -c), in text and
    JSON; the exit code does not change."""
    scenario.adopt("api")
    scenario.adopt("worker")
    made = create_by_hand(scenario, "by-hand")
    settle(scenario)
    result = scenario.plan("-c", "./planner.toml", "--detailed-exitcode")
    assert result.code == 0, result.out
    assert "Not recorded by this state" in result.out
    assert f"planner import -c ./planner.toml by-hand {made.id}" in result.out
    data = json.loads(scenario.plan("--format", "json").out)
    assert data["unmanaged"] == [
        {
            "name": "by-hand",
            "id": made.id,
            "created_at": data["unmanaged"][0]["created_at"],
            "import_command": f"planner import by-hand {made.id}",
        }
    ]
    assert scenario.get(made.id).updated_at == made.updated_at


def test_a_narrowed_plan_says_partial_in_every_format(scenario: Scenario) -> None:
    """--only: text and markdown say "Partial plan", JSON has partial and the filters."""
    scenario.adopt("api")
    scenario.adopt("worker")
    settle(scenario)
    text = scenario.plan("--only", "api", "--detailed-exitcode")
    assert text.code == 0
    assert "Partial plan (--only api)" in text.out and "match" not in text.out
    assert "Partial plan (--only api)" in scenario.plan("--only", "api", "--format", "markdown").out
    data = json.loads(scenario.plan("--exclude", "api", "--format", "json").out)
    assert data["partial"] is True and data["exclude"] == ["api"] and data["only"] == []


def test_unknown_names_are_errors_in_every_command(scenario: Scenario) -> None:
    """plan, apply and apply --refresh-only refuse a typo in --only/--exclude (exit 1)."""
    for argv in (
        ("plan", "--only", "wroker"),
        ("apply", "--auto-approve", "--only", "wroker"),
        ("apply", "--refresh-only", "--auto-approve", "--exclude", "wroker"),
    ):
        result = scenario.cli(*argv)
        assert result.code == 1, argv
        assert "wroker" in result.err and "did you mean 'worker'?" in result.err


def json_changes(scenario: Scenario) -> dict[str, dict[str, Any]]:
    plan = json.loads(scenario.plan("--format", "json").out)
    return {change["name"]: change for change in plan["changes"]}


def create_by_hand(scenario: Scenario, name: str) -> Deployment:
    """A deployment made outside the planner (as by the web console)."""
    body = {
        "name": name,
        "source": "internal_docker",
        "source_revision_config": {"image_uri": f"registry.example.com/{name}:1"},
    }
    create = DeploymentCreate.model_validate(body)
    return scenario.remote(lambda client: client.create_deployment(create))


def test_every_kind_of_plan_leaves_the_state_byte_identical(scenario: Scenario) -> None:
    """plan, --out, --destroy, --only, --refresh-only, json: the state file never moves."""
    api = scenario.adopt("api")
    scenario.adopt("worker")
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    before = state_hash(scenario)
    for argv in (
        (),
        ("--out", "plan.json"),
        ("--destroy",),
        ("--only", "api"),
        ("--refresh-only",),
        ("--format", "json"),
        ("--format", "markdown", "--detailed-exitcode"),
    ):
        assert scenario.plan(*argv).code in (0, 2), argv
        assert state_hash(scenario) == before, argv
