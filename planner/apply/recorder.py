"""Writing the state as apply goes: after every completed operation, never only at the end.

Invariants:
- `commit()` returns only once every change made to the document before the call is
  durable, so an operation counts as done only when it is recorded;
- a commit appends the changes since the last one (small deltas, noted by the document)
  to the state's operation log (planner.state.oplog): its cost does not grow with the
  number of deployments. The first commit of a new state, or of a state read with a log
  left by an apply that died, is a full versioned write instead (that is the compaction
  "on the next start"); `flush()` at the end folds the log into one versioned write, so
  an apply moves the serial once (twice after a crash);
- writes are serialised (one at a time) and concurrent commits share one append (group
  commit), so 100 parallel creates do not queue 100 fsyncs behind each other;
- the document is changed only on the event loop; the append runs in a thread on the
  deltas taken there, so slow disks do not stall the requests and polls in flight;
- a write in progress is finished even when the caller is cancelled, so the document's
  serial always matches the store and the next write is not refused as stale;
- once a store failed (a short write, an fsync error, a full disk), every later commit
  raises before anything is sent: the failed deltas are durable nowhere, so no intent
  after them may count as recorded. `flush()` still tries the one versioned write.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from planner.errors import PlannerError, StateError
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, PendingIntent, StateDocument, advance
from planner.state.moves import move_recorded
from planner.state.oplog import group_of
from planner.state.records import RecordedDeployment

# a backend call and its one argument: (write, snapshot) or (append, group)
_Step = tuple[Callable[[Any], StateDocument | None], Any]


class StateRecorder:
    """The one writer of the state during an apply (see the module docstring)."""

    def __init__(
        self,
        backend: StateBackend,
        doc: StateDocument,
        *,
        run_write: Callable[..., Awaitable[Any]] | None = None,
    ) -> None:
        self.backend = backend
        self.doc = doc
        self.writes = 0
        self._requested = 0
        self._written = 0
        self._lock = asyncio.Lock()
        self._run_write: Callable[..., Awaitable[Any]] = run_write or asyncio.to_thread
        # a new state has no version to append to; a log left by a run that died is
        # compacted by this run's first write
        self._must_write = doc.serial == 0 or doc.replayed > 0
        self._leftover = doc.replayed > 0  # a log to fold in even when nothing changes
        self._appended = False  # the log holds groups no versioned write has folded yet
        self._failed: PlannerError | None = None  # the first store that failed
        doc.track_changes()

    async def commit(self) -> None:
        """Make every change so far durable, unless a write that started after this call
        already did."""
        self._requested += 1
        wanted = self._requested
        async with self._lock:
            if self._written >= wanted:
                return
            self._check_not_failed()
            covered = self._requested
            await self._store(self._next_step())
            self._written = covered

    def _check_not_failed(self) -> None:
        """After a failed store its deltas are nowhere durable: no later commit may
        report them (or anything after them) as recorded, so nothing more is sent."""
        if self._failed is not None:
            raise StateError(
                f"stopped, nothing more is sent: a state write failed: {self._failed.message}",
                hint=self._failed.hint,
            )

    async def flush(self) -> None:
        """Fold the operation log, and whatever an operation cancelled between its change
        and its commit left, into one versioned write (nothing when nothing changed)."""
        self._requested += 1
        async with self._lock:
            covered = self._requested
            if self.doc.take_changes() or self._appended or self._leftover or self._failed:
                await self._store_last(self._full_write())
            self._written = covered

    async def _store_last(self, step: _Step) -> None:
        """The versioned write of `flush`; when it fails after an earlier store did, the
        error is that first one (the cause), with this one as a detail."""
        first = self._failed
        try:
            await self._store(step)
        except PlannerError as error:
            if first is None:
                raise
            first.details.append(f"then: {error.message}")
            raise first from None
        self._failed = None

    def _next_step(self) -> _Step | None:
        """What the next store does: a full write, an append of the deltas, or nothing."""
        if self._must_write:
            self.doc.take_changes()
            return self._full_write()
        deltas = self.doc.take_changes()
        if not deltas:
            return None
        self._appended = True
        return self.backend.append, group_of(self.doc, deltas)

    def _full_write(self) -> _Step:
        """A versioned write of the whole document: it carries every change and log."""
        self._must_write = self._appended = self._leftover = False
        return self.backend.write, self.doc.snapshot()

    async def _store(self, step: _Step | None) -> None:
        if step is None:
            return
        future = asyncio.ensure_future(self._run_write(*step))
        try:
            written = await asyncio.shield(future)
        except asyncio.CancelledError:
            written = await future  # let it land: the serial must stay in step with the store
            self._stored(written)
            raise
        except PlannerError as error:
            self._failed = self._failed or error
            raise
        self._stored(written)

    def _stored(self, written: StateDocument | None) -> None:
        if written is not None:  # a versioned write: the document takes its serial
            advance(self.doc, written)
        self.writes += 1

    # --- changes, each followed by a commit -------------------------------------------

    async def journal_create(self, name: str) -> PendingIntent:
        """Journal a create BEFORE it is sent: after a crash the next run looks NAME up.

        A record of NAME (a deployment deleted outside the planner, created again) is
        dropped in the same write: the journal, not a dead id, must speak for the name."""
        if name in self.doc.deployments:
            self.doc.forget(name)
        intent = self.doc.add_intent(IntentOp.CREATE, name)
        await self.commit()
        return intent

    async def journal_update(
        self, name: str, deployment_id: str, details: dict[str, Any]
    ) -> PendingIntent:
        """Journal a PATCH (DETAILS: the values it sets) BEFORE it is sent: after a crash
        the next plan reports those values as recovered, not as drift."""
        intent = self.doc.add_intent(
            IntentOp.UPDATE, name, deployment_id=deployment_id, details=details
        )
        await self.commit()
        return intent

    async def journal_deletes(self, targets: dict[str, str | None]) -> None:
        """Journal deletes (name -> deployment id) BEFORE they are sent, in one write."""
        for name, deployment_id in targets.items():
            self.doc.add_intent(IntentOp.DELETE, name, deployment_id=deployment_id)
        await self.commit()

    async def drop(self, intent: PendingIntent) -> None:
        """Clear a journalled operation that was never sent (or was refused)."""
        self.doc.clear_intent(intent)
        await self.commit()

    async def record(
        self, recorded: RecordedDeployment, *, done: PendingIntent | None = None
    ) -> None:
        self.doc.record(recorded)
        # a record supersedes any update or delete journalled for the name, this run's or
        # one left by a run that died (the plan that led here has accounted for it)
        self.doc.clear_intents(recorded.name, IntentOp.UPDATE, IntentOp.DELETE)
        if done is not None:
            self.doc.clear_intent(done)
        await self.commit()

    async def forget(self, name: str) -> None:
        """Drop NAME's record (its deployment is gone) and what was journalled for it."""
        self.doc.forget(name)
        self.doc.clear_intents(name, IntentOp.UPDATE, IntentOp.DELETE)
        await self.commit()

    async def drop_deletes(self, name: str) -> None:
        """Clear NAME's journalled deletes: the server answered that nothing was deleted."""
        if self.doc.clear_intents(name, IntentOp.DELETE):
            await self.commit()

    async def restore(self, deposed: str, name: str) -> None:
        """Record a deposed deployment under its address again (nothing replaced it)."""
        move_recorded(self.doc, deposed, name)
        await self.commit()

    def current(self, name: str) -> RecordedDeployment | None:
        return self.doc.deployments.get(name)
