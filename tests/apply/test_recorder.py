"""Writing the state during an apply: group commits, serials in step, intents."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from planner.apply.recorder import StateRecorder
from planner.errors import StateError
from planner.state import InMemoryBackend, RecordedDeployment, StateDocument

pytestmark = pytest.mark.anyio

ID = "00000000-0000-4000-8000-0000000000a1"


def recorder() -> StateRecorder:
    return StateRecorder(InMemoryBackend(), StateDocument.new("embedded:test", None))


async def test_each_commit_is_on_disk_when_it_returns() -> None:
    """After `record` returns, the stored state holds the record."""
    rec = recorder()
    await rec.record(RecordedDeployment(name="alpha", id=ID))
    stored = rec.backend.read()
    assert stored is not None and "alpha" in stored.deployments
    assert stored.serial == rec.doc.serial == 1


async def test_concurrent_commits_share_writes_and_keep_the_serial_in_step() -> None:
    """Fifty concurrent records need far fewer than fifty writes, all land, and the
    document can be written again afterwards (its serial matches the store)."""
    rec = recorder()

    async def one(i: int) -> None:
        rec.doc.record(RecordedDeployment(name=f"d{i}", id=ID))
        await rec.commit()

    await asyncio.gather(*(one(i) for i in range(50)))
    stored = rec.backend.read()
    assert stored is not None and len(stored.deployments) == 50
    assert rec.writes < 50
    await rec.record(RecordedDeployment(name="last", id=ID))
    assert rec.backend.read().serial == rec.doc.serial  # type: ignore[union-attr]


async def test_a_create_is_journalled_then_cleared_with_its_record() -> None:
    """`journal_create` writes the intent; `record(..., done=intent)` clears it in the
    same write as the record."""
    rec = recorder()
    intent = await rec.journal_create("alpha")
    assert [i.name for i in rec.backend.read().pending] == ["alpha"]  # type: ignore[union-attr]
    await rec.record(RecordedDeployment(name="alpha", id=ID), done=intent)
    stored = rec.backend.read()
    assert stored is not None and stored.pending == [] and "alpha" in stored.deployments


async def test_journalling_a_create_drops_a_stale_record_of_the_name() -> None:
    """Re-creating a deployment deleted outside: the old record goes in the journal write."""
    rec = recorder()
    await rec.record(RecordedDeployment(name="alpha", id=ID))
    await rec.journal_create("alpha")
    stored = rec.backend.read()
    assert stored is not None and "alpha" not in stored.deployments
    assert [i.name for i in stored.pending] == ["alpha"]


async def test_a_cancelled_commit_still_finishes_its_write() -> None:
    """Cancelling the caller mid-write lets the write land and keeps the serial in step."""
    started = asyncio.Event()
    release = asyncio.Event()

    async def slow_write(write: object, doc: StateDocument) -> StateDocument:
        started.set()
        await release.wait()
        return rec.backend.write(doc)

    rec = StateRecorder(
        InMemoryBackend(), StateDocument.new("embedded:test", None), run_write=slow_write
    )
    rec.doc.record(RecordedDeployment(name="alpha", id=ID))
    task = asyncio.ensure_future(rec.commit())
    await started.wait()
    task.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.backend.read().serial == rec.doc.serial == 1  # type: ignore[union-attr]


async def test_flush_writes_only_changes_not_yet_stored() -> None:
    """`flush` leaves the file alone when every change is stored, and writes one that
    was made without a commit."""
    rec = recorder()
    await rec.record(RecordedDeployment(name="alpha", id=ID))
    await rec.flush()
    assert rec.writes == 1
    rec.doc.record(RecordedDeployment(name="beta", id=ID))
    await rec.flush()
    assert rec.writes == 2
    assert "beta" in rec.backend.read().deployments  # type: ignore[union-attr]


async def test_update_and_delete_are_journalled_before_they_are_sent() -> None:
    """`journal_update` and `journal_deletes` are stored when they return; a record of the
    name clears them (a left-over one from a run that died too)."""
    from planner.state.document import IntentOp

    rec = recorder()
    await rec.journal_deletes({"beta": ID})
    intent = await rec.journal_update("alpha", ID, {"fields": {"a": 1}})
    stored = rec.backend.read()
    assert stored is not None
    assert [(i.op, i.name) for i in stored.pending] == [
        (IntentOp.DELETE, "beta"),
        (IntentOp.UPDATE, "alpha"),
    ]
    assert stored.pending[1].details == {"fields": {"a": 1}}
    rec.doc.add_intent(IntentOp.UPDATE, "alpha")  # one a crashed run left behind
    await rec.record(RecordedDeployment(name="alpha", id=ID), done=intent)
    await rec.record(RecordedDeployment(name="beta", id=ID))
    stored = rec.backend.read()
    assert stored is not None and stored.pending == []


async def test_commits_append_to_the_log_and_flush_makes_one_version() -> None:
    """After the first write, commits append (the serial stays, readers see every
    record); `flush` folds them into exactly one new version."""
    rec = recorder()
    await rec.record(RecordedDeployment(name="first", id=ID))
    for i in range(5):
        await rec.record(RecordedDeployment(name=f"d{i}", id=ID))
    stored = rec.backend.read()
    assert stored is not None and stored.serial == 1 and stored.replayed == 5
    assert len(stored.deployments) == 6
    await rec.flush()
    assert [v.serial for v in rec.backend.history()] == [2, 1]
    stored = rec.backend.read()
    assert stored is not None and stored.replayed == 0 and len(stored.deployments) == 6
    assert stored.serial == rec.doc.serial == 2


async def test_a_log_left_by_a_run_that_died_is_compacted_by_the_first_commit() -> None:
    """A document read with a replayed log is written in full at the next run's first
    commit (compaction on the next start), then that run appends again."""
    first = recorder()
    await first.record(RecordedDeployment(name="first", id=ID))
    await first.journal_create("crashed")  # the run dies here: no flush
    backend = first.backend
    left = backend.read()
    assert left is not None and left.replayed == 1
    rec = StateRecorder(backend, left)
    await rec.record(RecordedDeployment(name="next", id=ID))
    assert [v.serial for v in backend.history()] == [2, 1]
    await rec.record(RecordedDeployment(name="after", id=ID))
    stored = backend.read()
    assert stored is not None and stored.serial == 2 and stored.replayed == 1
    assert [i.name for i in stored.pending] == ["crashed"]


async def test_flush_folds_a_left_log_even_when_nothing_changed() -> None:
    """An apply with nothing to do still compacts the log a killed run left."""
    first = recorder()
    await first.record(RecordedDeployment(name="first", id=ID))
    await first.journal_create("crashed")
    left = first.backend.read()
    assert left is not None
    rec = StateRecorder(first.backend, left)
    await rec.flush()
    stored = first.backend.read()
    assert stored is not None and stored.serial == 2 and stored.replayed == 0
    assert [i.name for i in stored.pending] == ["crashed"]


async def test_a_failed_write_stops_the_commits_waiting_for_it() -> None:
    """When a write fails, its caller gets the failure and every commit that waited for
    it is refused (nothing after an undurable change counts as recorded)."""
    release = asyncio.Event()

    async def failing_write(write: Any, snapshot: Any) -> Any:
        await release.wait()
        raise StateError("disk full")

    rec = StateRecorder(
        InMemoryBackend(), StateDocument.new("embedded:test", None), run_write=failing_write
    )
    first = asyncio.ensure_future(rec.record(RecordedDeployment(name="first", id=ID)))
    await asyncio.sleep(0)
    others = [
        asyncio.ensure_future(rec.record(RecordedDeployment(name=f"d{i}", id=ID))) for i in range(3)
    ]
    await asyncio.sleep(0)
    release.set()
    results = await asyncio.gather(first, *others, return_exceptions=True)
    assert [str(r) for r in results[:1]] == ["disk full"]
    assert all(
        isinstance(r, StateError) and "nothing more is sent" in r.message for r in results[1:]
    )


async def test_a_commit_queued_behind_flush_is_covered_by_its_write() -> None:
    """A commit that has to queue behind `flush` (waiting for the lock) returns without a
    write of its own: flush's versioned write carried its change."""
    release = asyncio.Event()

    async def held_write(write: Any, snapshot: Any) -> Any:
        await release.wait()
        return write(snapshot)

    rec = StateRecorder(
        InMemoryBackend(), StateDocument.new("embedded:test", None), run_write=held_write
    )
    first = asyncio.ensure_future(rec.record(RecordedDeployment(name="first", id=ID)))
    await asyncio.sleep(0)
    flushing = asyncio.ensure_future(rec.flush())
    await asyncio.sleep(0)
    rec.doc.record(RecordedDeployment(name="late", id=ID))
    late = asyncio.ensure_future(rec.commit())
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(first, flushing, late)
    assert rec.writes == 2
    stored = rec.backend.read()
    assert stored is not None and set(stored.deployments) == {"first", "late"}
    assert stored.serial == rec.doc.serial == 2
