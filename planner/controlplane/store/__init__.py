"""SQLite store of the local control plane: one file, WAL, every query workspace-scoped.

`Store`, here, is the file's connection and its units of work. One connection is shared
by the request threads behind a lock.
- A write is one `BEGIN IMMEDIATE` transaction (`Store.transaction()`), so a
  read-modify-write (a PATCH, a bulk delete) can never interleave with another, in this
  process or in another one opening the same file (`busy_timeout` makes those wait).
- The creates of one turn of the event loop share one transaction (`Store.batched()`):
  each is a savepoint, one COMMIT ends them all at the loop's next turn, and each is
  answered only once that COMMIT is done; any other unit of work commits them first.
- A read is one deferred transaction (`Store.snapshot()`): a consistent snapshot of the
  WAL that takes no lock, so reads never wait for writers and never block them; it yields
  a `Snapshot`, which has no write queries.
- `synchronous=NORMAL`: in WAL mode a commit is durable once it returns as far as the
  process is concerned (a crash or kill of any process loses nothing committed); only an
  OS crash or power loss may roll back the last commits, never corrupting the file. The
  WAL is fsynced at checkpoints, not per commit, which is most of a create's cost.

Deployments whose deletion time has passed are purged (with their revisions and tracing
project) at the start of every write, and before a read when one is due (an indexed
probe), so "gone" needs no background task.

All SQL lives in this package (the list page's in `pages.py`), one job a module:
- `schema.py`: the tables and indexes, and the upgrade of an older file in place;
- `codecs.py`: the columns each query selects and how a row becomes a value and back;
- `reads.py`: `Snapshot`, the read queries a snapshot (and every unit of work) offers;
- `writes.py`: `Transaction`, a `Snapshot` that writes too, telling the memo what changed;
- `memo.py`: what the store remembers between reads (`ReadMemo`): where a plain
  listing's pages begin (`PageStarts`) and the views of settled deployments
  (`SettledViews`); a write forgets what it changes, another connection's commit
  everything.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from planner.controlplane.rows import (
    DeploymentFilter,
    DeploymentRow,
    ListenerRow,
    RevisionRow,
    RevisionSummary,
    StoredDeployment,
    TracingProjectRow,
    UploadRow,
)
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store.codecs import stored
from planner.controlplane.store.memo import PageStarts, ReadMemo, SettledViews
from planner.controlplane.store.reads import Snapshot
from planner.controlplane.store.schema import SCHEMA, create_tables
from planner.controlplane.store.writes import Transaction

__all__ = [
    "SCHEMA",
    "DeploymentFilter",
    "DeploymentRow",
    "ListenerRow",
    "PageStarts",
    "ReadMemo",
    "RevisionRow",
    "RevisionSummary",
    "SettledViews",
    "Snapshot",
    "Store",
    "StoredDeployment",
    "TracingProjectRow",
    "Transaction",
    "UploadRow",
    "stored",
]


class Store:
    """The control plane's SQLite file. Thread-safe; `close()` when done."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.path = Path(settings.db_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _create_private(self.path)
        self._lock = threading.RLock()
        self._memo = ReadMemo()
        # The open batch of `batched()` units: its loop and its COMMIT's future.
        self._batch: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves.
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: the indexes of 100k+ rows
        self._conn.execute("PRAGMA busy_timeout=30000")
        # Checkpoint the WAL every 4,000 pages (16 MiB), not SQLite's 1,000: a create dirties
        # about ten pages, and the same few (the tables' and indexes' last leaves) are
        # copied back once per checkpoint, not four times (a tenth of a create's CPU).
        self._conn.execute("PRAGMA wal_autocheckpoint=4000")
        create_tables(self._conn)

    def _unit_of_work(self) -> Transaction:
        """A write's transaction, a deletion that has come due purged first."""
        tx = Transaction(self._conn, self._memo)
        now = self.settings.clock()
        if self._has_due_deletion(now):
            tx.purge_deleted(now)
        return tx

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One serialised unit of work: committed on success, rolled back on any error."""
        with self._lock:
            self._commit_batch()
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._unit_of_work()
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[Snapshot]:
        """A read-only unit of work on one consistent snapshot; takes no database lock.

        A deletion that has come due is purged first (in a write), so a read never shows
        a deployment that is gone; writing inside a snapshot is a programming error.
        """
        with self._lock:
            self._commit_batch()
            if self._has_due_deletion(self.settings.clock()):
                with self.transaction():
                    pass
            self._conn.execute("BEGIN DEFERRED")
            try:
                yield Snapshot(self._conn, self._memo)
            finally:
                self._conn.execute("ROLLBACK")

    @contextmanager
    def batched(self) -> Iterator[Transaction]:
        """A unit of work of the event loop's thread that commits with the others of this
        turn of the loop: one COMMIT for them all, at its next turn (a COMMIT is most of a
        create's store work). Its caller answers only once `batch_committed()` is done.

        Each is a savepoint of the batch's transaction, rolled back alone on any error; any
        other unit of work commits the batch first, so nothing else ever sees it open."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._batch is None:
                self._conn.execute("BEGIN IMMEDIATE")
                self._batch = (loop, loop.create_future())
                loop.call_soon(self.commit_batch)
            self._conn.execute("SAVEPOINT batched")
            try:
                yield self._unit_of_work()
            except BaseException:
                self._conn.execute("ROLLBACK TO batched")
                self._conn.execute("RELEASE batched")
                raise
            self._conn.execute("RELEASE batched")

    def batch_committed(self) -> asyncio.Future[None]:
        """Done once the batch of the last `batched()` unit is committed (call it right
        after, on the loop's thread); raises what the COMMIT raised."""
        with self._lock:
            if self._batch is not None:
                return self._batch[1]
        done = asyncio.get_running_loop().create_future()
        done.set_result(None)  # committed already, by another unit of work
        return done

    def commit_batch(self) -> None:
        with self._lock:
            self._commit_batch()

    def _commit_batch(self) -> None:
        """COMMIT the open batch, if any (holding the lock), and settle its waiters."""
        if self._batch is None:
            return
        (loop, done), self._batch = self._batch, None
        failure: BaseException | None = None
        try:
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            failure = exc
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
        finally:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_settle, done, failure)

    def _has_due_deletion(self, now: float) -> bool:
        """One probe of the deletion index: purging costs three statements, probing one."""
        found = self._conn.execute(
            "SELECT 1 FROM deployments WHERE delete_at <= ? LIMIT 1", (now,)
        ).fetchone()
        return found is not None

    def close(self) -> None:
        with self._lock:
            self._commit_batch()
            self._conn.close()


def _settle(done: asyncio.Future[None], failure: BaseException | None) -> None:
    if done.done():
        return
    if failure is None:
        done.set_result(None)
    else:
        done.set_exception(failure)


def _create_private(path: Path) -> None:
    """The database holds secret values: owner-only (SQLite gives -wal/-shm the same mode)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)
