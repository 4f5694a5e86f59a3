"""The reconcile metrics follow the status board, in a registry of their own."""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from planner.reconcile.metrics import ReconcileMetrics
from planner.reconcile.status import CYCLE_RESULTS, StatusBoard
from tests.reconcile.board import STARTED, cycle


def samples(metrics: ReconcileMetrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition, parsed by prometheus_client's own parser."""
    text = metrics.exposition().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def following(board: StatusBoard) -> ReconcileMetrics:
    metrics = ReconcileMetrics()
    board.add_listener(metrics.observe)
    return metrics


def test_every_result_is_counted_from_zero() -> None:
    """Before any cycle each result has a series at 0, and the gauges are 0."""
    found = samples(ReconcileMetrics())
    for result in CYCLE_RESULTS:
        assert found[("planner_reconcile_cycles_total", (("result", result),))] == 0
    assert found[("planner_leader", ())] == 0
    assert found[("planner_reconcile_duration_seconds_count", ())] == 0
    assert found[("planner_reconcile_last_success_timestamp_seconds", ())] == 0


def test_cycles_set_counts_gauges_and_the_histogram() -> None:
    """A healed cycle then a failed one: counted by result; drift and pending from the
    healed one; last success is when it ended; both durations in the histogram."""
    board = StatusBoard()
    metrics = following(board)
    board.record_cycle(cycle("healed", drifted=2, pending=1, changed=2, duration_s=3.0))
    board.record_cycle(cycle("error", minute=5, duration_s=0.2))
    found = samples(metrics)
    assert found[("planner_reconcile_cycles_total", (("result", "healed"),))] == 1
    assert found[("planner_reconcile_cycles_total", (("result", "error"),))] == 1
    assert found[("planner_drifted_deployments", ())] == 2
    assert found[("planner_pending_changes", ())] == 1
    ended = (STARTED + timedelta(seconds=3)).timestamp()
    assert found[("planner_reconcile_last_success_timestamp_seconds", ())] == ended
    assert found[("planner_reconcile_duration_seconds_count", ())] == 2
    assert found[("planner_reconcile_duration_seconds_sum", ())] == 3.2
    assert found[("planner_reconcile_duration_seconds_bucket", (("le", "0.25"),))] == 1
    assert found[("planner_reconcile_duration_seconds_bucket", (("le", "+Inf"),))] == 2


def test_a_refused_cycle_sets_the_gauges_but_is_no_success() -> None:
    """Refused (too many changes): drift and pending are known; the last success is not moved."""
    board = StatusBoard()
    metrics = following(board)
    board.record_cycle(cycle("refused", drifted=20, pending=20))
    found = samples(metrics)
    assert found[("planner_pending_changes", ())] == 20
    assert found[("planner_reconcile_last_success_timestamp_seconds", ())] == 0


def test_a_standby_is_counted_but_neither_timed_nor_planned() -> None:
    """A standby's cycle counts as `standby` and leaves the histogram and gauges alone."""
    board = StatusBoard()
    metrics = following(board)
    board.set_leader("other (pid 9)", False)
    board.record_cycle(cycle("standby", drifted=5))
    found = samples(metrics)
    assert found[("planner_reconcile_cycles_total", (("result", "standby"),))] == 1
    assert found[("planner_reconcile_duration_seconds_count", ())] == 0
    assert found[("planner_drifted_deployments", ())] == 0
    assert found[("planner_leader", ())] == 0


def test_leadership_sets_planner_leader() -> None:
    """planner_leader is 1 while this replica leads, 0 once it gives it up."""
    board = StatusBoard()
    metrics = following(board)
    board.set_leader("me (pid 1)", True)
    assert samples(metrics)[("planner_leader", ())] == 1
    board.set_leader(None, False)
    assert samples(metrics)[("planner_leader", ())] == 0


def test_the_global_registry_is_left_alone() -> None:
    """Two metric sets coexist (no duplicate-series error) and neither is in the global registry."""
    first, second = ReconcileMetrics(), ReconcileMetrics()
    assert first.registry is not second.registry
    assert REGISTRY.get_sample_value("planner_leader") is None
