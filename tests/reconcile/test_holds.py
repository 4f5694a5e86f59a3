"""Held deployments in a reconcile cycle: reported (the cycle's `held`, its event, the
`planner_held_deployments` gauge, a Hold column on the status page), never healed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from planner.plan.model import Drift
from planner.plan.refresh import Observed
from planner.reconcile.cycle import Settings, deployment_rows, judged
from planner.reconcile.events import RECONCILE_EVENT
from planner.reconcile.metrics import ReconcileMetrics
from planner.reconcile.page import render_page
from planner.reconcile.status import HoldView, StatusBoard
from planner.reconcile.view import JsonView
from tests.plan.builders import HELD_REVISION, HOLD, held_inputs, held_plan
from tests.reconcile.board import cycle, row
from tests.reconcile.test_metrics import samples

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_a_cycle_reports_held_deployments_and_never_counts_them_as_changes() -> None:
    """A plan whose held deployments differ from the config: they are the cycle's `held`,
    named in its message, never pending; with nothing else to change the cycle is `ok`."""
    plan = held_plan()
    found = judged(plan, [], Settings())
    assert found.held == ["batch", "support-agent"] and found.pending == ["worker"]
    assert found.result == "drift" and "2 held by a rollback, not healed" in found.message
    only_held = plan.model_copy(update={"changes": []})
    calm = judged(only_held, [], Settings())
    assert calm.result == "ok" and calm.pending == [] and calm.left == []
    assert calm.message == "in sync; 2 held by a rollback, not healed (batch, support-agent)"


def test_a_held_deployment_that_drifted_makes_the_cycle_drift_without_a_change() -> None:
    """A held deployment changed outside the planner: the cycle is `drift`, its message
    names it, and still nothing is pending for it (it is never healed)."""
    plan = held_plan()
    drift = Drift(name="batch", path="source_revision_config.repo_ref", recorded="a", observed="b")
    drifted = plan.model_copy(update={"changes": [], "drift": [drift]})
    found = judged(drifted, [], Settings())
    assert found.result == "drift" and found.pending == [] and found.held_drifted == ["batch"]
    assert "1 held deployment(s) drifted outside the planner (batch)" in found.message


def test_held_deployments_are_rows_of_the_status_page_with_their_hold() -> None:
    """Every held deployment has a row (it is in no change of the plan) carrying its hold."""
    inputs = held_inputs()
    observed = Observed(by_name=inputs["observed"])
    config = SimpleNamespace(deployments=inputs["desired"])
    rows = {r.address: r for r in deployment_rows(held_plan(), observed, config)}  # type: ignore[arg-type]
    assert sorted(rows) == ["batch", "support-agent", "worker"]
    assert rows["worker"].hold is None and rows["support-agent"].health == "healthy"
    hold = rows["support-agent"].hold
    assert hold == HoldView(HELD_REVISION, HOLD.since, HOLD.by, "planner release support-agent", 2)


def test_the_held_gauge_follows_the_cycles_that_planned() -> None:
    """`planner_held_deployments` is the last planning cycle's count (a cycle with errors
    that planned too); a cycle that did not plan leaves it."""
    board = StatusBoard()
    metrics = ReconcileMetrics()
    board.add_listener(metrics.observe)
    assert samples(metrics)[("planner_held_deployments", ())] == 0
    board.record_cycle(cycle("ok", held=2))
    assert samples(metrics)[("planner_held_deployments", ())] == 2
    board.record_cycle(cycle("error", minute=1, held=1))
    assert samples(metrics)[("planner_held_deployments", ())] == 1
    board.record_cycle(cycle("standby", minute=2))
    board.record_cycle(cycle("error", minute=3))  # failed before planning
    assert samples(metrics)[("planner_held_deployments", ())] == 1


def test_the_status_page_shows_the_hold_only_when_one_is_held() -> None:
    """A Hold column (revision, since, by, release command) and a `held` drift cell appear
    when a row is held; a board without holds has no such column."""
    board = StatusBoard()
    board.set_deployments([row("worker")])
    assert "<th>Hold</th>" not in render_page(board.snapshot(), now=NOW)
    hold = HoldView(HELD_REVISION, HOLD.since, HOLD.by, "planner release api", 2)
    board.set_deployments([row("api", hold=hold), row("worker")])
    page = render_page(board.snapshot(), now=NOW)
    assert "<th>Hold</th>" in page and '<td class="held">held</td>' in page
    assert f"rolled back to <code>{HELD_REVISION}</code></span> since {HOLD.since}" in page
    assert "<code>planner release api</code> lifts it" in page
    assert "would change 2 field(s)" in page


def test_the_cycle_event_lists_held_deployments(capsys: pytest.CaptureFixture[str]) -> None:
    """`--format json`: the cycle event's `held_deployments` names them (its `held` stays
    the deletions held back), and the line is valid against the event schema."""
    found = judged(held_plan(), ["old"], Settings())
    JsonView().cycle(1, "heal", 0.1, found, None)
    event = json.loads(capsys.readouterr().out)
    RECONCILE_EVENT.validate_python(event)
    assert event["held_deployments"] == ["batch", "support-agent"] and event["held"] == ["old"]
