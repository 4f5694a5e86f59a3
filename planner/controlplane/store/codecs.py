"""Row codecs of the store: which columns each query selects, and how a row becomes a
`rows.py` value and back (JSON columns stored as compact ASCII text, the form a view
copies into a response)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import fields
from typing import Any

from planner.controlplane.lifecycle import status_config
from planner.controlplane.rows import (
    DeploymentRow,
    ListenerRow,
    RevisionRow,
    RevisionSummary,
    StoredDeployment,
)

DEPLOYMENT_JSON = ("source_config", "source_revision_config", "secrets", "secret_references")
REVISION_JSON = ("source_revision_config",)
STORED_COLUMNS = ", ".join(StoredDeployment._fields)


def summary_columns(table: str = "") -> tuple[str, ...]:
    """The columns of a `RevisionSummary` (of TABLE, e.g. `r.`)."""
    stored = ["id", "source", "source_revision_config", "created_at", "build_seconds"]
    stored += ["deploy_seconds", "skipped_at"]
    commit = f"json_extract({table}source_revision_config, '$.repo_commit_sha')"
    return (*(f"{table}{c}" for c in stored), commit)


# A list page's row: a deployment, then one of its revisions (NULLs: none).
PAGE_COLUMNS = (*(f"d.{c}" for c in StoredDeployment._fields), *summary_columns("r."))
DEPLOYMENT_WIDTH = len(StoredDeployment._fields)
REVISION_COLUMNS = ", ".join(f.name for f in fields(RevisionRow))
LISTENER_COLUMNS = ", ".join(f.name for f in fields(ListenerRow))
LISTENER_JSON = ("compute_config",)
UPLOAD_COLUMNS = (
    "id, object_path, tenant_id, deployment_id, token_sha256, created_at, expires_at, "
    "size, sha256, uploaded_at"
)


def _json(text: str) -> Any:
    # most secrets and references are empty: no parser call for those
    return [] if text == "[]" else {} if text == "{}" else json.loads(text)


def decoded(cursor: sqlite3.Cursor, json_keys: Sequence[str]) -> Iterator[dict[str, Any]]:
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


def deployment_rows(cursor: sqlite3.Cursor) -> list[DeploymentRow]:
    return [DeploymentRow(**row) for row in decoded(cursor, DEPLOYMENT_JSON)]


def revision_rows(cursor: sqlite3.Cursor) -> list[RevisionRow]:
    """Rows selected as `REVISION_COLUMNS`."""
    return [revision_row(values) for values in cursor]


def revision_row(values: Sequence[Any]) -> RevisionRow:
    """A revision from its `REVISION_COLUMNS`, built by position (no dict per row)."""
    i, d, seq, source, config, *rest = values
    return RevisionRow(i, d, seq, source, _json(config), *rest)


def revision_summary(values: Sequence[Any]) -> RevisionSummary:
    """A revision's summary from its `summary_columns`."""
    i, source, config, *rest = values
    return RevisionSummary(i, source, status_config(source, config), *rest)


def stored_deployments(cursor: sqlite3.Cursor) -> list[StoredDeployment]:
    return [StoredDeployment._make(values) for values in cursor]


def query(conn: sqlite3.Connection, sql: str, params: Any = ()) -> sqlite3.Cursor:
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params)


# One encoder for every stored JSON column (`json.dumps` with options builds one per call).
_COMPACT = json.JSONEncoder(separators=(",", ":"))


def encoded(values: dict[str, Any], json_keys: Sequence[str]) -> dict[str, Any]:
    """JSON columns as compact ASCII text: the form a view copies into a response."""
    return {k: _COMPACT.encode(v) if k in json_keys else v for k, v in values.items()}


def stored(row: DeploymentRow) -> StoredDeployment:
    """ROW as the store writes it."""
    values = encoded(vars(row), DEPLOYMENT_JSON)
    return StoredDeployment(**{name: values[name] for name in StoredDeployment._fields})
