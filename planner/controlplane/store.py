"""SQLite store of the local control plane: one file, WAL, every query workspace-scoped.

All SQL lives here (the list page's in `pages.py`). One connection is shared by the
request threads behind a lock.
- A write is one `BEGIN IMMEDIATE` transaction (`Store.transaction()`), so a
  read-modify-write (a PATCH, a bulk delete) can never interleave with another, in this
  process or in another one opening the same file (`busy_timeout` makes those wait).
- The creates of one turn of the event loop share one transaction (`Store.batched()`):
  each is a savepoint, one COMMIT ends them all at the loop's next turn, and each is
  answered only once that COMMIT is done; any other unit of work commits them first.
- A read is one deferred transaction (`Store.snapshot()`): a consistent snapshot of the
  WAL that takes no lock, so reads never wait for writers and never block them.
- `synchronous=NORMAL`: in WAL mode a commit is durable once it returns as far as the
  process is concerned (a crash or kill of any process loses nothing committed); only an
  OS crash or power loss may roll back the last commits, never corrupting the file. The
  WAL is fsynced at checkpoints, not per commit, which is most of a create's cost.

Deployments whose deletion time has passed are purged (with their revisions and tracing
project) at the start of every write, and before a read when one is due (an indexed
probe), so "gone" needs no background task.

`pages.py` says which index each list filter seeks. Between reads the store remembers
(`ReadMemo`) where a plain listing's pages begin (`PageStarts`) and the views of settled
deployments (`SettledViews`); a write forgets what it changes, another connection's
commit everything.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import fields
from pathlib import Path
from typing import Any

from planner.api.chunks import chunked
from planner.controlplane.lifecycle import status_config
from planner.controlplane.pages import page_keys_sql, page_sql
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

__all__ = [
    "DeploymentFilter",
    "DeploymentRow",
    "ListenerRow",
    "PageStarts",
    "ReadMemo",
    "RevisionRow",
    "RevisionSummary",
    "SettledViews",
    "Store",
    "StoredDeployment",
    "TracingProjectRow",
    "Transaction",
    "UploadRow",
]

# Columns added after a release: a database file made before them gains them on open.
ADDED_COLUMNS = (("deployments", "display_name", "TEXT"),)

SCHEMA = """
CREATE TABLE IF NOT EXISTS deployments (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    source_config TEXT NOT NULL,
    source_revision_config TEXT NOT NULL,
    secrets TEXT NOT NULL,
    secret_references TEXT NOT NULL,
    image_version TEXT,
    latest_revision_id TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    ready_at REAL NOT NULL,
    delete_at REAL,
    display_name TEXT,
    UNIQUE (tenant_id, name)
);
CREATE INDEX IF NOT EXISTS deployments_by_tenant ON deployments (tenant_id, created_at, id);
CREATE INDEX IF NOT EXISTS deployments_by_delete_at ON deployments (delete_at);
CREATE TABLE IF NOT EXISTS revisions (
    id TEXT PRIMARY KEY,
    deployment_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    source TEXT NOT NULL,
    source_revision_config TEXT NOT NULL,
    created_at REAL NOT NULL,
    build_seconds REAL NOT NULL,
    deploy_seconds REAL NOT NULL,
    skipped_at REAL,
    UNIQUE (deployment_id, seq)
);
CREATE TABLE IF NOT EXISTS uploads (
    id TEXT PRIMARY KEY,
    object_path TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    size INTEGER,
    sha256 TEXT,
    uploaded_at REAL,
    content BLOB
);
CREATE TABLE IF NOT EXISTS listeners (
    id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    compute_type TEXT NOT NULL,
    compute_id TEXT NOT NULL,
    compute_config TEXT NOT NULL,
    version TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    deleted_at REAL,
    PRIMARY KEY (tenant_id, id)
);
CREATE TABLE IF NOT EXISTS tracing_projects (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    deployment_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

_DEPLOYMENT_JSON = ("source_config", "source_revision_config", "secrets", "secret_references")
_REVISION_JSON = ("source_revision_config",)
_STORED_COLUMNS = ", ".join(StoredDeployment._fields)


def _summary_columns(table: str = "") -> tuple[str, ...]:
    """The columns of a `RevisionSummary` (of TABLE, e.g. `r.`)."""
    stored = ["id", "source", "source_revision_config", "created_at", "build_seconds"]
    stored += ["deploy_seconds", "skipped_at"]
    commit = f"json_extract({table}source_revision_config, '$.repo_commit_sha')"
    return (*(f"{table}{c}" for c in stored), commit)


# A list page's row: a deployment, then one of its revisions (NULLs: none).
_PAGE_COLUMNS = (*(f"d.{c}" for c in StoredDeployment._fields), *_summary_columns("r."))
_DEPLOYMENT_WIDTH = len(StoredDeployment._fields)
_NO_FILTER = DeploymentFilter()
_REVISION_COLUMNS = ", ".join(f.name for f in fields(RevisionRow))
_LISTENER_COLUMNS = ", ".join(f.name for f in fields(ListenerRow))
_LISTENER_JSON = ("compute_config",)
_UPLOAD_COLUMNS = (
    "id, object_path, tenant_id, deployment_id, token_sha256, created_at, expires_at, "
    "size, sha256, uploaded_at"
)


def _json(text: str) -> Any:
    # most secrets and references are empty: no parser call for those
    return [] if text == "[]" else {} if text == "{}" else json.loads(text)


def _decoded(cursor: sqlite3.Cursor, json_keys: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The rows of CURSOR as column -> value, JSON columns decoded (plain tuples, named
    once per query: a `sqlite3.Row` looked up by name per column costs more)."""
    cursor.row_factory = None
    names = [column[0] for column in cursor.description or ()]
    decode = [(index, name) for index, name in enumerate(names) if name in json_keys]
    for values in cursor:
        row = dict(zip(names, values, strict=True))
        for index, name in decode:
            row[name] = _json(values[index])
        yield row


def _deployments(cursor: sqlite3.Cursor) -> list[DeploymentRow]:
    return [DeploymentRow(**row) for row in _decoded(cursor, _DEPLOYMENT_JSON)]


def _revisions(cursor: sqlite3.Cursor) -> list[RevisionRow]:
    """Rows selected as `_REVISION_COLUMNS`, built by position (no dict per row)."""
    return [
        RevisionRow(i, d, seq, source, _json(config), *rest)
        for i, d, seq, source, config, *rest in cursor
    ]


def _summary(values: Sequence[Any]) -> RevisionSummary:
    """A revision's summary from its `_summary_columns`."""
    i, source, config, *rest = values
    return RevisionSummary(i, source, status_config(source, config), *rest)


def _stored(cursor: sqlite3.Cursor) -> list[StoredDeployment]:
    return [StoredDeployment._make(values) for values in cursor]


def _query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params)


# One encoder for every stored JSON column (`json.dumps` with options builds one per call).
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def _encoded(values: dict[str, Any], json_keys: Sequence[str]) -> dict[str, Any]:
    """JSON columns as compact ASCII text: the form a view copies into a response."""
    return {k: _COMPACT.encode(v) if k in json_keys else v for k, v in values.items()}


def stored(row: DeploymentRow) -> StoredDeployment:
    """ROW as the store writes it."""
    values = _encoded(vars(row), _DEPLOYMENT_JSON)
    return StoredDeployment(**{name: values[name] for name in StoredDeployment._fields})


# A row's place in the page order: (created_at, id).
PageKey = tuple[float, str]


class PageStarts:
    """Where the pages of a plain listing (no filter) begin: the page order's key of the
    row before offset N, remembered when a page ends there, so the page at N seeks its
    first row in the workspace index instead of walking the N entries before it.

    OFFSET keeps its meaning: the key stays the row before N as long as no row sorting
    before it is added or removed. A new deployment sorting after every key remembered
    keeps them (a create's `created_at` is the clock's now); one sorting before any, a
    purge, or a commit by another connection (`PRAGMA data_version`: another process or
    store on the file: `ReadMemo.check`) forgets them all, and the next pages walk OFFSET
    again."""

    LIMIT = 100_000  # keys remembered (a listing of a million rows, 100 a page, at most)

    def __init__(self) -> None:
        self._keys: dict[tuple[str, int], PageKey] = {}
        self._greatest: PageKey | None = None

    def before(self, tenant_id: str, offset: int) -> PageKey | None:
        """The key of the row just before OFFSET in TENANT_ID's page order, if known."""
        return self._keys.get((tenant_id, offset))

    def remember(self, tenant_id: str, offset: int, key: PageKey) -> None:
        """KEY is the row just before OFFSET."""
        if len(self._keys) >= self.LIMIT:
            self.forget()
        self._keys[(tenant_id, offset)] = key
        if self._greatest is None or key > self._greatest:
            self._greatest = key

    def added(self, key: PageKey) -> None:
        """A row with KEY was inserted."""
        if self._greatest is not None and key < self._greatest:
            self.forget()

    def forget(self) -> None:
        self._keys = {}
        self._greatest = None


class SettledViews:
    """The wire text of deployments whose view no longer changes with time, by id, each
    with the instant from which it holds (`views.settled_since`): a plain list page whose
    deployments are all here is written without reading their rows. The store forgets a
    deployment's view whenever its row or its revisions are written."""

    LIMIT = 50_000  # views kept (about 1 KB each)

    def __init__(self) -> None:
        self._views: dict[str, tuple[float, str]] = {}

    def get(self, deployment_id: str, now: float) -> str | None:
        found = self._views.get(deployment_id)
        return found[1] if found is not None and now >= found[0] else None

    def keep(self, deployment_id: str, since: float, text: str) -> None:
        """TEXT is the deployment's view at every instant from SINCE on."""
        if len(self._views) >= self.LIMIT:
            self.forget()
        self._views[deployment_id] = (since, text)

    def drop(self, deployment_ids: Iterable[str]) -> None:
        for deployment_id in deployment_ids:
            self._views.pop(deployment_id, None)

    def forget(self) -> None:
        self._views = {}


class ReadMemo:
    """What a store remembers between reads; all of it forgotten once another connection
    (another process or store on the file) has committed."""

    def __init__(self) -> None:
        self.starts = PageStarts()
        self.views = SettledViews()
        self._version: int | None = None

    def check(self, conn: sqlite3.Connection) -> None:
        """Forget everything if another connection has committed since the last check."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self.starts.forget()
            self.views.forget()
            self._version = version


class Transaction:
    """The queries of one unit of work: inside `Store.transaction()` or `Store.snapshot()`
    (MEMO: the store's, told of every write that changes what it remembers)."""

    def __init__(self, conn: sqlite3.Connection, memo: ReadMemo | None = None) -> None:
        self.conn = conn
        self.memo = memo or ReadMemo()
        self._checked = False  # the memo against other connections' commits, once

    def _check_memo(self) -> None:
        if not self._checked:
            self.memo.check(self.conn)
            self._checked = True

    # --- deployments ---------------------------------------------------------------

    def insert_deployment(self, row: DeploymentRow) -> StoredDeployment:
        """Insert ROW; what was written."""
        written = stored(row)
        marks = ", ".join("?" for _ in written)
        self.conn.execute(f"INSERT INTO deployments ({_STORED_COLUMNS}) VALUES ({marks})", written)
        self.memo.starts.added((row.created_at, row.id))
        return written

    def update_deployment(self, row: DeploymentRow) -> StoredDeployment:
        """Write ROW over its stored version; what was written."""
        written = stored(row)
        self.memo.views.drop([row.id])
        values = written._asdict()
        sets = ", ".join(f"{k} = :{k}" for k in values if k not in ("id", "tenant_id"))
        self.conn.execute(
            f"UPDATE deployments SET {sets} WHERE id = :id AND tenant_id = :tenant_id", values
        )
        return written

    def get_deployment(self, tenant_id: str, deployment_id: str) -> DeploymentRow | None:
        sql = "SELECT * FROM deployments WHERE tenant_id = ? AND id = ?"
        found = _deployments(_query(self.conn, sql, (tenant_id, deployment_id)))
        return found[0] if found else None

    def stored_deployment(self, tenant_id: str, deployment_id: str) -> StoredDeployment | None:
        sql = f"SELECT {_STORED_COLUMNS} FROM deployments WHERE tenant_id = ? AND id = ?"
        found = _stored(_query(self.conn, sql, (tenant_id, deployment_id)))
        return found[0] if found else None

    def has_name(self, tenant_id: str, name: str) -> bool:
        found = self.conn.execute(
            "SELECT 1 FROM deployments WHERE tenant_id = ? AND name = ?", (tenant_id, name)
        ).fetchone()
        return found is not None

    def list_deployments(
        self, tenant_id: str, where: DeploymentFilter, now: float, limit: int, offset: int
    ) -> list[tuple[StoredDeployment, list[RevisionSummary]]]:
        """One page in a stable order (created_at, id), each deployment with what its
        view reads of its revisions (newest first)."""
        if where.match_nothing or where.deployment_ids == []:
            return []
        plain = where == _NO_FILTER
        after = None
        if plain:
            self._check_memo()
            after = self.memo.starts.before(tenant_id, offset) if offset else None
        sql, params = page_sql(where, _PAGE_COLUMNS, after=after is not None)
        params.update(tenant_id=tenant_id, now=now, limit=limit, offset=offset)
        if after is not None:
            params.update(after_created_at=after[0], after_id=after[1], offset=0)
        page: list[tuple[StoredDeployment, list[RevisionSummary]]] = []
        revisions: list[RevisionSummary] = []
        for values in _query(self.conn, sql, params):
            if not page or page[-1][0].id != values[0]:
                revisions = []
                page.append((StoredDeployment._make(values[:_DEPLOYMENT_WIDTH]), revisions))
            if values[_DEPLOYMENT_WIDTH] is not None:
                revisions.append(_summary(values[_DEPLOYMENT_WIDTH:]))
        if plain and page:
            last = page[-1][0]
            self.memo.starts.remember(tenant_id, offset + len(page), (last.created_at, last.id))
        return page

    def settled_page(
        self, tenant_id: str, where: DeploymentFilter, now: float, limit: int, offset: int
    ) -> list[str] | None:
        """The views of a plain page (no filter) when every one of its deployments has
        a settled view remembered (`SettledViews`); None otherwise. Reads only the
        workspace index, from where the page begins (`PageStarts`): a page after an
        unknown start is read whole (looking would walk OFFSET, and a miss walk it twice)."""
        if where != _NO_FILTER:
            return None
        self._check_memo()
        after = self.memo.starts.before(tenant_id, offset) if offset else None
        if offset and after is None:
            return None
        sql, params = page_keys_sql(where, after=after is not None)
        params.update(tenant_id=tenant_id, limit=limit, offset=offset)
        if after is not None:
            params.update(after_created_at=after[0], after_id=after[1], offset=0)
        found = self.memo.views.get
        texts: list[str] = []
        key: PageKey | None = None
        for key in _query(self.conn, sql, params):
            text = found(key[1], now)
            if text is None:
                return None  # read no further
            texts.append(text)
        if key is not None:
            self.memo.starts.remember(tenant_id, offset + len(texts), key)
        return texts

    def count_deployments(self, tenant_id: str) -> int:
        found = self.conn.execute(
            "SELECT COUNT(*) FROM deployments WHERE tenant_id = ?", (tenant_id,)
        ).fetchone()
        return int(found[0])

    def mark_deleting(self, deployment_ids: Sequence[str], now: float, delete_at: float) -> None:
        self.memo.views.drop(deployment_ids)
        self.conn.executemany(
            "UPDATE deployments SET delete_at = ?, updated_at = ? WHERE id = ?",
            [(delete_at, now, i) for i in deployment_ids],
        )

    def purge_deleted(self, now: float) -> None:
        """Remove deployments whose deletion time has passed, with what hangs off them."""
        gone = "SELECT id FROM deployments WHERE delete_at IS NOT NULL AND delete_at <= ?"
        self.conn.execute(f"DELETE FROM revisions WHERE deployment_id IN ({gone})", (now,))
        self.conn.execute(f"DELETE FROM tracing_projects WHERE deployment_id IN ({gone})", (now,))
        self.conn.execute(f"DELETE FROM uploads WHERE deployment_id IN ({gone})", (now,))
        self.conn.execute(
            "DELETE FROM deployments WHERE delete_at IS NOT NULL AND delete_at <= ?", (now,)
        )
        self.memo.starts.forget()
        self.memo.views.forget()

    # --- revisions -----------------------------------------------------------------

    def insert_revision(self, row: RevisionRow) -> None:
        self.memo.views.drop([row.deployment_id])
        values = _encoded(vars(row), _REVISION_JSON)
        columns = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        self.conn.execute(f"INSERT INTO revisions ({columns}) VALUES ({marks})", values)

    def revisions_of(self, deployment_ids: Sequence[str]) -> dict[str, list[RevisionRow]]:
        """Every revision of each deployment, newest first."""
        found: dict[str, list[RevisionRow]] = {i: [] for i in deployment_ids}
        for chunk in chunked(list(deployment_ids), 500):
            marks = ", ".join("?" for _ in chunk)
            sql = (
                f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE deployment_id IN ({marks}) "
                "ORDER BY deployment_id, seq DESC"
            )
            for revision in _revisions(_query(self.conn, sql, chunk)):
                found[revision.deployment_id].append(revision)
        return found

    def revision_summaries(self, deployment_ids: Sequence[str]) -> dict[str, list[RevisionSummary]]:
        """What the views of these deployments read of their revisions, newest first."""
        found: dict[str, list[RevisionSummary]] = {i: [] for i in deployment_ids}
        for chunk in chunked(list(deployment_ids), 500):
            marks = ", ".join("?" for _ in chunk)
            sql = (
                f"SELECT deployment_id, {', '.join(_summary_columns())} FROM revisions "
                f"WHERE deployment_id IN ({marks}) ORDER BY deployment_id, seq DESC"
            )
            for deployment_id, *values in _query(self.conn, sql, chunk):
                found[deployment_id].append(_summary(values))
        return found

    def list_revisions(self, deployment_id: str, limit: int, offset: int) -> list[RevisionRow]:
        sql = (
            f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE deployment_id = ? "
            "ORDER BY seq DESC LIMIT ? OFFSET ?"
        )
        return _revisions(_query(self.conn, sql, (deployment_id, limit, offset)))

    def all_revisions(self, deployment_id: str) -> list[RevisionRow]:
        """Every revision of one deployment, newest first (for filters on computed status)."""
        return self.revisions_of([deployment_id])[deployment_id]

    def get_revision(self, deployment_id: str, revision_id: str) -> RevisionRow | None:
        sql = f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE deployment_id = ? AND id = ?"
        found = _revisions(_query(self.conn, sql, (deployment_id, revision_id)))
        return found[0] if found else None

    def mark_skipped(self, revision_ids: Sequence[str], at: float) -> None:
        if not revision_ids:
            return
        self.memo.views.forget()  # whose they are is not known here
        self.conn.executemany(
            "UPDATE revisions SET skipped_at = ? WHERE id = ?", [(at, i) for i in revision_ids]
        )

    # --- uploads -------------------------------------------------------------------

    def insert_upload(self, row: UploadRow) -> None:
        values = vars(row)
        columns = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        self.conn.execute(f"INSERT INTO uploads ({columns}) VALUES ({marks})", values)

    def get_upload(self, upload_id: str) -> UploadRow | None:
        found = self.conn.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM uploads WHERE id = ?", (upload_id,)
        ).fetchone()
        return UploadRow(*found) if found else None

    def find_upload(self, tenant_id: str, object_path: str) -> UploadRow | None:
        found = self.conn.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM uploads WHERE tenant_id = ? AND object_path = ?",
            (tenant_id, object_path),
        ).fetchone()
        return UploadRow(*found) if found else None

    def store_upload(self, upload_id: str, content: bytes, sha256: str, now: float) -> None:
        self.conn.execute(
            "UPDATE uploads SET content = ?, size = ?, sha256 = ?, uploaded_at = ? WHERE id = ?",
            (content, len(content), sha256, now, upload_id),
        )

    # --- listeners -----------------------------------------------------------------

    def insert_listener(self, row: ListenerRow, *, unless_known: bool = False) -> None:
        """Insert ROW (UNLESS_KNOWN: not when the workspace has, or had, that id)."""
        values = _encoded(vars(row), _LISTENER_JSON)
        marks = ", ".join(f":{k}" for k in values)
        verb = "INSERT OR IGNORE" if unless_known else "INSERT"
        self.conn.execute(f"{verb} INTO listeners ({_LISTENER_COLUMNS}) VALUES ({marks})", values)

    def update_listener(self, row: ListenerRow) -> None:
        values = _encoded(vars(row), _LISTENER_JSON)
        self.conn.execute(
            "UPDATE listeners SET compute_config = :compute_config, version = :version, "
            "updated_at = :updated_at, deleted_at = :deleted_at "
            "WHERE tenant_id = :tenant_id AND id = :id",
            values,
        )

    def listener(self, tenant_id: str, listener_id: str) -> ListenerRow | None:
        """The workspace's listener (not a deleted one)."""
        sql = (
            f"SELECT {_LISTENER_COLUMNS} FROM listeners "
            "WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL"
        )
        found = _query(self.conn, sql, (tenant_id, listener_id))
        return next((ListenerRow(**row) for row in _decoded(found, _LISTENER_JSON)), None)

    def listeners(self, tenant_id: str, limit: int, offset: int) -> list[ListenerRow]:
        """One page of the workspace's listeners, oldest first."""
        sql = (
            f"SELECT {_LISTENER_COLUMNS} FROM listeners WHERE tenant_id = ? "
            "AND deleted_at IS NULL ORDER BY created_at, id LIMIT ? OFFSET ?"
        )
        found = _query(self.conn, sql, (tenant_id, limit, offset))
        return [ListenerRow(**row) for row in _decoded(found, _LISTENER_JSON)]

    def listener_ids(self, tenant_id: str) -> set[str]:
        """The ids of every listener the workspace has or had (deleted ones included)."""
        rows = self.conn.execute("SELECT id FROM listeners WHERE tenant_id = ?", (tenant_id,))
        return {row[0] for row in rows}

    def has_compute_id(self, tenant_id: str, compute_id: str) -> bool:
        found = self.conn.execute(
            "SELECT 1 FROM listeners WHERE tenant_id = ? AND compute_id = ? AND deleted_at IS NULL",
            (tenant_id, compute_id),
        ).fetchone()
        return found is not None

    # --- tracing projects ----------------------------------------------------------

    def insert_tracing_project(self, row: TracingProjectRow) -> None:
        self.conn.execute(
            "INSERT INTO tracing_projects (id, tenant_id, deployment_id, name, created_at) "
            "VALUES (:id, :tenant_id, :deployment_id, :name, :created_at)",
            vars(row),
        )

    def tracing_project(self, tenant_id: str, project_id: str) -> TracingProjectRow | None:
        found = self.conn.execute(
            "SELECT id, tenant_id, deployment_id, name, created_at FROM tracing_projects "
            "WHERE tenant_id = ? AND id = ?",
            (tenant_id, project_id),
        ).fetchone()
        return TracingProjectRow(*found) if found else None

    def tracing_projects(self, tenant_id: str) -> list[TracingProjectRow]:
        rows = self.conn.execute(
            "SELECT id, tenant_id, deployment_id, name, created_at FROM tracing_projects "
            "WHERE tenant_id = ? ORDER BY created_at, id",
            (tenant_id,),
        )
        return [TracingProjectRow(*r) for r in rows]


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
        self._conn.executescript(SCHEMA)
        _add_columns(self._conn)

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
    def snapshot(self) -> Iterator[Transaction]:
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
                yield Transaction(self._conn, self._memo)
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


def _add_columns(conn: sqlite3.Connection) -> None:
    """Upgrade a database file made before `ADDED_COLUMNS`, in place."""
    for table, column, kind in ADDED_COLUMNS:
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _create_private(path: Path) -> None:
    """The database holds secret values: owner-only (SQLite gives -wal/-shm the same mode)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    os.chmod(path, 0o600)
