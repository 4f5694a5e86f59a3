"""Writing the state as apply goes: after every completed operation, never only at the end.

Invariants:
- `commit()` returns only once a write that contains every change made to the document
  before the call is on disk, so an operation counts as done only when it is recorded;
- writes are serialised (one at a time) and concurrent commits share one write (group
  commit), so 100 parallel creates do not queue 100 fsyncs behind each other;
- the document is changed only on the event loop; the write runs in a thread on a
  snapshot, so slow disks do not stall the requests and polls in flight;
- a write in progress is finished even when the caller is cancelled, so the document's
  serial always matches the file and the next write is not refused as stale.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from planner.state.backend import StateBackend
from planner.state.document import IntentOp, PendingIntent, StateDocument, advance
from planner.state.records import RecordedDeployment


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
        self._run_write = run_write or asyncio.to_thread
        self._clean = _content(doc)

    async def commit(self) -> None:
        """Write the document unless a write that started after this call already did."""
        self._requested += 1
        wanted = self._requested
        async with self._lock:
            if self._written >= wanted:
                return
            covered = self._requested
            await self._write(self.doc.model_copy(deep=True))
            self._written = covered

    async def flush(self) -> None:
        """Write if the document holds changes no write has stored yet (an operation
        cancelled between its change and its commit); otherwise leave the file alone."""
        if _content(self.doc) != self._clean:
            await self.commit()

    async def _write(self, snapshot: StateDocument) -> None:
        future = asyncio.ensure_future(self._run_write(self.backend.write, snapshot))
        try:
            written = await asyncio.shield(future)
        except asyncio.CancelledError:
            written = await future  # let it land: the serial must stay in step with the file
            self._written_back(snapshot, written)
            raise
        self._written_back(snapshot, written)

    def _written_back(self, snapshot: StateDocument, written: StateDocument) -> None:
        advance(self.doc, written)
        self._clean = _content(snapshot)
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

    def current(self, name: str) -> RecordedDeployment | None:
        return self.doc.deployments.get(name)


def _content(doc: StateDocument) -> dict[str, Any]:
    """What a write would change: everything but the bookkeeping a write itself sets."""
    return doc.model_dump(mode="json", exclude={"checksum", "serial", "tool_version"})
