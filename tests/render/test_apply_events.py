"""The NDJSON event stream: one valid event per line, flushed, the last a summary."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

from planner.api.retry import RetryNotice
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.errors import ApiError, PlanStaleError
from planner.plan.model import Action
from planner.render.apply_events import EventStream, error_event, write_event
from tests.event_lines import event_lines

NOW = datetime(2026, 11, 23, 14, 5, 1, 250000, tzinfo=UTC)


class Flushes(io.StringIO):
    """A stream that counts its flushes."""

    flushed = 0

    def flush(self) -> None:
        self.flushed += 1
        super().flush()


def test_a_run_streams_one_valid_event_per_line_and_flushes_each() -> None:
    """start, status, operation, retry, pause, interrupt and summary lines are each valid
    against the checked-in schema, carry a UTC `time` with `Z`, and each is flushed."""
    out = Flushes()
    stream = EventStream(out, "apply", now=lambda: NOW, clock=lambda: 12.0)
    row = DeploymentResult("api", Action.CREATE, started=10.0)
    same = DeploymentResult("same", Action.NO_OP)
    stream.begin([row, same])
    row.status = "creating"
    stream.update(row)
    stream.update(row)  # a repeat says nothing
    stream.retry(
        RetryNotice(503, 0.25, 1, "POST /v2/deployments failed: 503", ApiError("x")), "api"
    )
    stream.pause(2.0, None)
    stream.interrupt("SIGTERM", "Terminated (SIGTERM): ...")
    row.status, row.outcome, row.revision_id, row.seconds = "DEPLOYED", Outcome.SUCCEEDED, "r1", 2
    stream.update(row)
    same.status, same.outcome = "no changes", Outcome.SUCCEEDED
    stream.update(same)  # a no-op is no event
    stream.summary(ApplyResult(results=[row, same], interrupted=True, seconds=2.5), 143)
    events = event_lines(out.getvalue())
    assert [e["type"] for e in events] == [
        "start", "status", "retry", "pause", "interrupt", "operation", "summary",
    ]  # fmt: skip
    assert out.flushed == len(events)
    assert {e["time"] for e in events} == {"2026-11-23T14:05:01.250Z"}
    assert events[0]["changes"] == 1
    assert events[1] == {
        "type": "status", "time": "2026-11-23T14:05:01.250Z", "deployment": "api",
        "action": "create", "status": "creating", "seconds": 2.0,
    }  # fmt: skip
    assert (events[2]["status_code"], events[2]["wait_seconds"], events[2]["deployment"]) == (
        503, 0.25, "api",
    )  # fmt: skip
    assert events[3]["status_code"] == 429 and events[3]["wait_seconds"] == 2.0
    assert events[5]["outcome"] == "succeeded" and events[5]["revision_id"] == "r1"
    summary = events[-1]
    assert summary["outcome"] == "interrupted" and summary["exit_code"] == 143
    assert summary["counts"]["created"] == 1 and summary["counts"]["failed"] == 0
    assert summary["message"].startswith("Apply interrupted: 1 created")


def test_a_failed_and_a_not_started_deployment_end_with_their_operation_event() -> None:
    """A failure carries its error; a deployment a stop kept from starting ends as
    `not started`; the summary counts both and says failed (exit 1 when not interrupted)."""
    out = io.StringIO()
    stream = EventStream(out, "destroy", now=lambda: NOW)
    failed = DeploymentResult("api", Action.DELETE, status="failed", outcome=Outcome.FAILED)
    failed.error = "delete failed: busy"
    skipped = DeploymentResult("web", Action.DELETE, status="not started")
    stream.update(failed)
    stream.update(skipped)
    stream.summary(ApplyResult(results=[failed, skipped], mode="destroy"), 1)
    events = event_lines(out.getvalue())
    assert [(e["type"], e["outcome"]) for e in events[:2]] == [
        ("operation", "failed"), ("operation", "not started"),
    ]  # fmt: skip
    assert events[0]["error"] == "delete failed: busy"
    assert events[2]["outcome"] == "failed" and events[2]["operation"] == "destroy"
    assert events[2]["counts"]["not_started"] == 1


def test_an_error_is_one_line_with_the_json_error_object_and_the_exit_code() -> None:
    """The error event holds `.error.code` as every `--format json` error does."""
    out = io.StringIO()
    write_event(out, error_event(PlanStaleError("the plan is stale", hint="re-plan")))
    (event,) = event_lines(out.getvalue())
    assert event["error"] == {
        "code": "stale_plan", "message": "the plan is stale", "details": [], "hint": "re-plan",
    }  # fmt: skip
    assert event["exit_code"] == 1
    assert json.loads(out.getvalue())["type"] == "error"
