"""The Prometheus metrics of `planner reconcile`, kept from the status board.

prometheus-client (the maintained reference client) keeps the values and writes the
exposition format, histogram buckets included, into a registry of our own (never the
process-global one, so nothing else in the process can add or collide with a series).
`ReconcileMetrics.observe` is a `StatusBoard` listener: the board is the one source, the
metrics follow it.

- `planner_reconcile_cycles_total{result}`: every cycle, each result present from 0;
- `planner_reconcile_last_success_timestamp_seconds`: when the last cycle that did its job
  (`ok`, `drift`, `healed`) ended;
- `planner_drifted_deployments`, `planner_pending_changes`: from the last cycle that
  planned (a standby's or a failed cycle leaves them as they were);
- `planner_held_deployments`: the deployments a rollback holds (never healed until
  `planner release`), from the last cycle that made a plan (one with errors too);
- `planner_reconcile_duration_seconds`: a histogram of the cycles this replica ran;
- `planner_leader`: 1 while this replica is the leader.
"""

from __future__ import annotations

from datetime import timedelta

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from planner.reconcile.status import CYCLE_RESULTS, CycleRecord, StatusSnapshot

CONTENT_TYPE = CONTENT_TYPE_LATEST
SUCCESSFUL_RESULTS = frozenset({"ok", "drift", "healed"})
PLANNED_RESULTS = SUCCESSFUL_RESULTS | {"refused"}
DURATION_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


class ReconcileMetrics:
    """The reconcile metrics in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.cycles = Counter(
            "planner_reconcile_cycles",
            "Reconcile cycles by result (ok, drift, healed, refused, error, standby).",
            ["result"],
            registry=self.registry,
        )
        for result in CYCLE_RESULTS:
            self.cycles.labels(result)
        self.last_success = Gauge(
            "planner_reconcile_last_success_timestamp_seconds",
            "Unix time the last successful cycle (ok, drift or healed) ended.",
            registry=self.registry,
        )
        self.drifted = Gauge(
            "planner_drifted_deployments",
            "Deployments whose live state differed from the state at the last plan.",
            registry=self.registry,
        )
        self.pending = Gauge(
            "planner_pending_changes",
            "Changes the last plan had (after a heal: those still left to apply).",
            registry=self.registry,
        )
        self.held = Gauge(
            "planner_held_deployments",
            "Deployments a rollback holds at the last plan: reported, never healed until released.",
            registry=self.registry,
        )
        self.duration = Histogram(
            "planner_reconcile_duration_seconds",
            "How long the cycles this replica ran took.",
            buckets=DURATION_BUCKETS,
            registry=self.registry,
        )
        self.leader = Gauge(
            "planner_leader", "1 while this replica is the leader.", registry=self.registry
        )

    def observe(self, what: str, snapshot: StatusSnapshot) -> None:
        """Follow the board (a `StatusBoard` listener): WHAT changed, SNAPSHOT after it."""
        if what == "leader":
            self.leader.set(1 if snapshot.is_leader else 0)
        elif what == "cycle" and snapshot.last_cycle is not None:
            self.count_cycle(snapshot.last_cycle)

    def count_cycle(self, cycle: CycleRecord) -> None:
        self.cycles.labels(cycle.result).inc()
        if cycle.result == "standby":
            return
        self.duration.observe(cycle.duration_s)
        if cycle.result in SUCCESSFUL_RESULTS:
            ended = cycle.started_at + timedelta(seconds=cycle.duration_s)
            self.last_success.set(ended.timestamp())
        if cycle.result in PLANNED_RESULTS:
            self.drifted.set(cycle.drifted)
            self.pending.set(cycle.pending)
        if cycle.held is not None:
            self.held.set(cycle.held)

    def exposition(self) -> bytes:
        """The metrics in the Prometheus text format (`CONTENT_TYPE`)."""
        return generate_latest(self.registry)
