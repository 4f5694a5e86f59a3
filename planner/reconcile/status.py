"""What the reconcile loop publishes: the leader, the last cycles, the deployments, the
last plan, readiness.

The loop writes (`record_cycle`, `set_deployments`, ...) from its own thread; the HTTP
server reads a `snapshot()` from its threads. Every value is immutable, and one lock
guards the board, so a snapshot is always consistent. Listeners (the metrics) are called
under that lock, after the board changed, in the order they were added.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from planner.plan.model import HeldDeployment

CycleResult = Literal["ok", "drift", "healed", "refused", "error", "standby"]
CYCLE_RESULTS: tuple[CycleResult, ...] = ("ok", "drift", "healed", "refused", "error", "standby")
KEPT_CYCLES = 50
UNREADY_AFTER_ERRORS = 3


@dataclass(frozen=True)
class CycleRecord:
    """One cycle of the loop: when, how long, in which mode, and what came of it."""

    started_at: datetime
    duration_s: float
    mode: str
    result: str  # one of CYCLE_RESULTS
    drifted: int
    pending: int
    changed: int
    message: str
    held: int | None = None  # deployments a rollback holds (None: the cycle did not plan)


@dataclass(frozen=True)
class HoldView:
    """A rollback's hold as the status page shows it: the revision, since when, by whom,
    and the command that lifts it."""

    revision: str
    since: str
    by: str
    release_command: str
    changes: int  # the fields the config would change once released

    @classmethod
    def of(cls, held: HeldDeployment) -> HoldView:
        return cls(held.revision, held.since, held.by, held.release_command, len(held.changes))


@dataclass(frozen=True)
class DeploymentRow:
    """One deployment as the status page lists it (never a secret value)."""

    address: str
    remote_name: str
    health: str
    drifted: bool
    last_change: str | None
    last_change_at: datetime | None
    hold: HoldView | None = None  # a rollback holds it: never healed until released


@dataclass(frozen=True)
class StatusSnapshot:
    """The whole board at one instant; `cycles` newest first."""

    leader_holder: str | None = None
    is_leader: bool = False
    ready: bool = False
    cycles: tuple[CycleRecord, ...] = ()
    deployments: tuple[DeploymentRow, ...] = ()
    deployments_at: datetime | None = None  # the start of the cycle that planned them
    last_plan: str | None = None

    @property
    def last_cycle(self) -> CycleRecord | None:
        return self.cycles[0] if self.cycles else None

    @property
    def failed_cycles(self) -> tuple[CycleRecord, ...]:
        """The cycles that failed since the last that did not, newest first."""
        count = next((i for i, c in enumerate(self.cycles) if c.result != "error"), None)
        return self.cycles if count is None else self.cycles[:count]


def readiness(snapshot: StatusSnapshot) -> tuple[bool, str]:
    """Whether the replica is ready, and why in a line: the one answer of /readyz and of
    the status page. Ready once the loop said so, unless its last `UNREADY_AFTER_ERRORS`
    cycles (a standby's left out) all failed."""
    if not snapshot.ready:
        return False, "not ready: starting"
    own = [c for c in snapshot.cycles if c.result != "standby"][:UNREADY_AFTER_ERRORS]
    if len(own) == UNREADY_AFTER_ERRORS and all(c.result == "error" for c in own):
        return False, f"not ready: the last {len(own)} cycles failed: {own[0].message}"
    return True, "ready"


Listener = Callable[[str, StatusSnapshot], None]


@dataclass
class StatusBoard:
    """The thread-safe board the loop writes and the HTTP server reads."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _cycles: deque[CycleRecord] = field(default_factory=lambda: deque(maxlen=KEPT_CYCLES))
    _snapshot: StatusSnapshot = field(default_factory=StatusSnapshot)
    _listeners: list[Listener] = field(default_factory=list)

    def add_listener(self, listener: Listener) -> None:
        """Call LISTENER(what, snapshot) after every change (`what` names the setter)."""
        with self._lock:
            self._listeners.append(listener)

    def set_leader(self, holder: str | None, is_leader: bool) -> None:
        self._update("leader", leader_holder=holder, is_leader=is_leader)

    def record_cycle(self, cycle: CycleRecord) -> None:
        with self._lock:
            self._cycles.appendleft(cycle)
            self._replace("cycle", cycles=tuple(self._cycles))

    def set_deployments(
        self, rows: list[DeploymentRow], planned_at: datetime | None = None
    ) -> None:
        self._update("deployments", deployments=tuple(rows), deployments_at=planned_at)

    def set_last_plan(self, markdown: str) -> None:
        self._update("last_plan", last_plan=markdown)

    def set_ready(self, ready: bool) -> None:
        self._update("ready", ready=ready)

    def snapshot(self) -> StatusSnapshot:
        with self._lock:
            return self._snapshot

    def _update(self, what: str, **changes: object) -> None:
        with self._lock:
            self._replace(what, **changes)

    def _replace(self, what: str, **changes: object) -> None:
        self._snapshot = replace(self._snapshot, **changes)  # type: ignore[arg-type]
        for listener in self._listeners:
            listener(what, self._snapshot)
