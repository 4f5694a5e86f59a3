"""The store's read queries, for its four tables: `Snapshot`, what `Store.snapshot()`
yields (and what every unit of work can read). A read changes nothing in the file; it may
teach the memo where a page begins, or check it against other connections' commits."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from planner.api.chunks import chunked
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
from planner.controlplane.store.codecs import (
    DEPLOYMENT_WIDTH,
    LISTENER_COLUMNS,
    LISTENER_JSON,
    PAGE_COLUMNS,
    REVISION_COLUMNS,
    STORED_COLUMNS,
    UPLOAD_COLUMNS,
    decoded,
    deployment_rows,
    query,
    revision_row,
    revision_rows,
    revision_summary,
    stored_deployments,
    summary_columns,
)
from planner.controlplane.store.memo import PageKey, ReadMemo

_NO_FILTER = DeploymentFilter()
T = TypeVar("T")


class Snapshot:
    """The read queries of one unit of work on one consistent snapshot of the file (MEMO:
    the store's, checked once against other connections' commits before it is used)."""

    def __init__(self, conn: sqlite3.Connection, memo: ReadMemo | None = None) -> None:
        self.conn = conn
        self.memo = memo or ReadMemo()
        self._checked = False  # the memo against other connections' commits, once

    def _check_memo(self) -> None:
        if not self._checked:
            self.memo.check(self.conn)
            self._checked = True

    def get_deployment(self, tenant_id: str, deployment_id: str) -> DeploymentRow | None:
        sql = "SELECT * FROM deployments WHERE tenant_id = ? AND id = ?"
        found = deployment_rows(query(self.conn, sql, (tenant_id, deployment_id)))
        return found[0] if found else None

    def stored_deployment(self, tenant_id: str, deployment_id: str) -> StoredDeployment | None:
        sql = f"SELECT {STORED_COLUMNS} FROM deployments WHERE tenant_id = ? AND id = ?"
        found = stored_deployments(query(self.conn, sql, (tenant_id, deployment_id)))
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
        sql, params = page_sql(where, PAGE_COLUMNS, after=after is not None)
        params.update(tenant_id=tenant_id, now=now, limit=limit, offset=offset)
        if after is not None:
            params.update(after_created_at=after[0], after_id=after[1], offset=0)
        page: list[tuple[StoredDeployment, list[RevisionSummary]]] = []
        revisions: list[RevisionSummary] = []
        for values in query(self.conn, sql, params):
            if not page or page[-1][0].id != values[0]:
                revisions = []
                page.append((StoredDeployment._make(values[:DEPLOYMENT_WIDTH]), revisions))
            if values[DEPLOYMENT_WIDTH] is not None:
                revisions.append(revision_summary(values[DEPLOYMENT_WIDTH:]))
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
        for key in query(self.conn, sql, params):
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

    def revisions_of(self, deployment_ids: Sequence[str]) -> dict[str, list[RevisionRow]]:
        """Every revision of each deployment, newest first."""
        return self._revisions_by_deployment(deployment_ids, REVISION_COLUMNS, revision_row)

    def revision_summaries(self, deployment_ids: Sequence[str]) -> dict[str, list[RevisionSummary]]:
        """What the views of these deployments read of their revisions, newest first."""
        columns = ", ".join(summary_columns())
        return self._revisions_by_deployment(deployment_ids, columns, revision_summary)

    def _revisions_by_deployment(
        self, deployment_ids: Sequence[str], columns: str, build: Callable[[Sequence[Any]], T]
    ) -> dict[str, list[T]]:
        """Each deployment's revisions, newest first, as BUILD makes them of COLUMNS (ids
        bound 500 a query: below SQLite's limit on parameters)."""
        found: dict[str, list[T]] = {i: [] for i in deployment_ids}
        for chunk in chunked(list(deployment_ids), 500):
            marks = ", ".join("?" for _ in chunk)
            sql = (
                f"SELECT deployment_id, {columns} FROM revisions "
                f"WHERE deployment_id IN ({marks}) ORDER BY deployment_id, seq DESC"
            )
            for deployment_id, *values in query(self.conn, sql, chunk):
                found[deployment_id].append(build(values))
        return found

    def list_revisions(self, deployment_id: str, limit: int, offset: int) -> list[RevisionRow]:
        sql = (
            f"SELECT {REVISION_COLUMNS} FROM revisions WHERE deployment_id = ? "
            "ORDER BY seq DESC LIMIT ? OFFSET ?"
        )
        return revision_rows(query(self.conn, sql, (deployment_id, limit, offset)))

    def all_revisions(self, deployment_id: str) -> list[RevisionRow]:
        """Every revision of one deployment, newest first (for filters on computed status)."""
        return self.revisions_of([deployment_id])[deployment_id]

    def get_revision(self, deployment_id: str, revision_id: str) -> RevisionRow | None:
        sql = f"SELECT {REVISION_COLUMNS} FROM revisions WHERE deployment_id = ? AND id = ?"
        found = revision_rows(query(self.conn, sql, (deployment_id, revision_id)))
        return found[0] if found else None

    def get_upload(self, upload_id: str) -> UploadRow | None:
        found = self.conn.execute(
            f"SELECT {UPLOAD_COLUMNS} FROM uploads WHERE id = ?", (upload_id,)
        ).fetchone()
        return UploadRow(*found) if found else None

    def find_upload(self, tenant_id: str, object_path: str) -> UploadRow | None:
        found = self.conn.execute(
            f"SELECT {UPLOAD_COLUMNS} FROM uploads WHERE tenant_id = ? AND object_path = ?",
            (tenant_id, object_path),
        ).fetchone()
        return UploadRow(*found) if found else None

    def listener(self, tenant_id: str, listener_id: str) -> ListenerRow | None:
        """The workspace's listener (not a deleted one)."""
        sql = (
            f"SELECT {LISTENER_COLUMNS} FROM listeners "
            "WHERE tenant_id = ? AND id = ? AND deleted_at IS NULL"
        )
        found = query(self.conn, sql, (tenant_id, listener_id))
        return next((ListenerRow(**row) for row in decoded(found, LISTENER_JSON)), None)

    def listeners(self, tenant_id: str, limit: int, offset: int) -> list[ListenerRow]:
        """One page of the workspace's listeners, oldest first."""
        sql = (
            f"SELECT {LISTENER_COLUMNS} FROM listeners WHERE tenant_id = ? "
            "AND deleted_at IS NULL ORDER BY created_at, id LIMIT ? OFFSET ?"
        )
        found = query(self.conn, sql, (tenant_id, limit, offset))
        return [ListenerRow(**row) for row in decoded(found, LISTENER_JSON)]

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
