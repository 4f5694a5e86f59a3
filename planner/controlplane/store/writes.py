"""The store's write queries, for its four tables: `Transaction`, what
`Store.transaction()` and `Store.batched()` yield. Each write tells the memo what it
changes: a deployment's remembered view is dropped whenever its row or its revisions are
written, and page starts are forgotten when a row sorts before one of them or is purged."""

from __future__ import annotations

from collections.abc import Sequence

from planner.controlplane.rows import (
    DeploymentRow,
    ListenerRow,
    RevisionRow,
    StoredDeployment,
    TracingProjectRow,
    UploadRow,
)
from planner.controlplane.store.codecs import (
    LISTENER_COLUMNS,
    LISTENER_JSON,
    REVISION_JSON,
    STORED_COLUMNS,
    encoded,
    stored,
)
from planner.controlplane.store.reads import Snapshot


class Transaction(Snapshot):
    """The queries of one unit of work that writes: inside `Store.transaction()` or
    `Store.batched()`; it reads as a `Snapshot` does."""

    def insert_deployment(self, row: DeploymentRow) -> StoredDeployment:
        """Insert ROW; what was written."""
        written = stored(row)
        marks = ", ".join("?" for _ in written)
        self.conn.execute(f"INSERT INTO deployments ({STORED_COLUMNS}) VALUES ({marks})", written)
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

    def insert_revision(self, row: RevisionRow) -> None:
        self.memo.views.drop([row.deployment_id])
        values = encoded(vars(row), REVISION_JSON)
        columns = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        self.conn.execute(f"INSERT INTO revisions ({columns}) VALUES ({marks})", values)

    def mark_skipped(self, revision_ids: Sequence[str], at: float) -> None:
        if not revision_ids:
            return
        self.memo.views.forget()  # whose they are is not known here
        self.conn.executemany(
            "UPDATE revisions SET skipped_at = ? WHERE id = ?", [(at, i) for i in revision_ids]
        )

    def insert_upload(self, row: UploadRow) -> None:
        values = vars(row)
        columns = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        self.conn.execute(f"INSERT INTO uploads ({columns}) VALUES ({marks})", values)

    def store_upload(self, upload_id: str, content: bytes, sha256: str, now: float) -> None:
        self.conn.execute(
            "UPDATE uploads SET content = ?, size = ?, sha256 = ?, uploaded_at = ? WHERE id = ?",
            (content, len(content), sha256, now, upload_id),
        )

    def insert_listener(self, row: ListenerRow, *, unless_known: bool = False) -> None:
        """Insert ROW (UNLESS_KNOWN: not when the workspace has, or had, that id)."""
        values = encoded(vars(row), LISTENER_JSON)
        marks = ", ".join(f":{k}" for k in values)
        verb = "INSERT OR IGNORE" if unless_known else "INSERT"
        self.conn.execute(f"{verb} INTO listeners ({LISTENER_COLUMNS}) VALUES ({marks})", values)

    def update_listener(self, row: ListenerRow) -> None:
        values = encoded(vars(row), LISTENER_JSON)
        self.conn.execute(
            "UPDATE listeners SET compute_config = :compute_config, version = :version, "
            "updated_at = :updated_at, deleted_at = :deleted_at "
            "WHERE tenant_id = :tenant_id AND id = :id",
            values,
        )

    def insert_tracing_project(self, row: TracingProjectRow) -> None:
        self.conn.execute(
            "INSERT INTO tracing_projects (id, tenant_id, deployment_id, name, created_at) "
            "VALUES (:id, :tenant_id, :deployment_id, :name, :created_at)",
            vars(row),
        )
