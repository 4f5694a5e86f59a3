"""`planner apply --format json` and `destroy --format json` through the CLI entry point:
stdout is NDJSON events only, each valid against schemas/apply-events.schema.json."""

from __future__ import annotations

import json

from tests.cli.conftest import Scenario
from tests.event_lines import event_lines


def test_apply_streams_events_and_ends_with_the_summary(scenario: Scenario) -> None:
    """Every stdout line is a valid event: start first, a status and an operation per
    deployment, the summary last (exit code 0); the plan goes to stderr for people."""
    result = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert result.code == 0, result.out + result.err
    events = event_lines(result.out)
    assert events[0]["type"] == "start" and events[0]["changes"] == 2
    ends = {e["deployment"]: e for e in events if e["type"] == "operation"}
    assert set(ends) == {"api", "worker"}
    assert {(e["outcome"], e["status"]) for e in ends.values()} == {("succeeded", "DEPLOYED")}
    assert {e["deployment"] for e in events if e["type"] == "status"} == {"api", "worker"}
    summary = events[-1]
    assert summary["type"] == "summary" and summary["exit_code"] == 0
    assert summary["outcome"] == "complete" and summary["counts"]["created"] == 2
    assert "+ api will be created" in result.err
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_failed_deployment_is_an_operation_event_and_exit_1(scenario: Scenario) -> None:
    """A failed build ends its deployment with outcome failed and its error; the
    summary says failed with exit code 1, as the process does."""
    scenario.edit_config("worker:1.0.0", "worker-fail-build:1.0.0")
    result = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert result.code == 1
    events = event_lines(result.out)
    (worker,) = [e for e in events if e["type"] == "operation" and e["deployment"] == "worker"]
    assert worker["outcome"] == "failed" and "BUILD_FAILED" in worker["error"]
    assert events[-1]["outcome"] == "failed" and events[-1]["exit_code"] == 1


def test_a_stale_saved_plan_is_one_error_line_with_code_stale_plan(scenario: Scenario) -> None:
    """`apply PLANFILE --format json` on a stale plan prints exactly one line on stdout,
    the error event with `.error.code == "stale_plan"`, the human line on stderr, and
    exits 1 having sent nothing."""
    assert scenario.plan("--out", "tfplan.json").code == 0
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    result = scenario.cli("apply", "tfplan.json", "--format", "json")
    assert result.code == 1
    (event,) = event_lines(result.out)
    assert json.loads(result.out)["error"]["code"] == "stale_plan"
    assert event["type"] == "error" and event["exit_code"] == 1
    assert "Error: the plan is stale" in result.err


def test_json_mode_never_asks_for_confirmation(scenario: Scenario) -> None:
    """Without --auto-approve (and no saved plan) --format json refuses with an error
    event instead of a question on stdout, and creates nothing."""
    result = scenario.cli("apply", "--format", "json")
    assert result.code == 1
    (event,) = event_lines(result.out)
    assert "--auto-approve" in event["error"]["hint"]
    assert scenario.state() is None or scenario.state().deployments == {}  # type: ignore[union-attr]


def test_destroy_streams_events_too(scenario: Scenario) -> None:
    """`destroy --format json` streams the same events, its summary naming destroy."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    result = scenario.cli("destroy", "--auto-approve", "--format", "json")
    assert result.code == 0, result.out + result.err
    events = event_lines(result.out)
    assert events[0]["operation"] == "destroy"
    ends = [(e["deployment"], e["status"]) for e in events if e["type"] == "operation"]
    assert sorted(ends) == [("api", "deleted"), ("worker", "deleted")]
    assert events[-1]["counts"]["deleted"] == 2 and events[-1]["operation"] == "destroy"
