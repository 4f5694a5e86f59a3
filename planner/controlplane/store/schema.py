"""The store's schema: its tables and indexes, and the in-place upgrade of a file made by
an earlier release (`ADDED_COLUMNS`). `pages.py` says which of these indexes each list
filter seeks."""

from __future__ import annotations

import sqlite3

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


def create_tables(conn: sqlite3.Connection) -> None:
    """Create what is missing of `SCHEMA` on CONN, then upgrade an older file in place."""
    conn.executescript(SCHEMA)
    _add_columns(conn)


def _add_columns(conn: sqlite3.Connection) -> None:
    """Upgrade a database file made before `ADDED_COLUMNS`, in place."""
    for table, column, kind in ADDED_COLUMNS:
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column not in present:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
