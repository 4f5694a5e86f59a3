"""PostgreSQL plumbing of the state backend: connections, errors, and the lock's rows.

Errors: every psycopg failure becomes a StateError naming the database by its redacted
URL, with the password scrubbed from the server's message too.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

import psycopg

from planner.errors import StateError
from planner.secrets import redact_url
from planner.state.locking import LockInfo
from planner.state.postgres_schema import LOCK_CLASSID, query

CONNECT_TIMEOUT_SECONDS = 10
# The server process holding a state's advisory lock (no row: the lock is free).
LOCK_PID = (
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid::text::bigint = %s AND objid::text::bigint = %s AND objsubid = 2"
)
LOCK_COLUMNS = "lock_id, who, host, pid, operation, since, ci_run, tool_version"
_INFO_KEYS = ("id", "who", "host", "pid", "operation", "created", "ci_run", "version")


@contextmanager
def database_errors(url: str) -> Iterator[None]:
    """psycopg's connection and query failures as a StateError, password removed
    (a unique violation passes: it is the compare-and-swap's answer)."""
    try:
        yield
    except psycopg.errors.UniqueViolation:
        raise
    except psycopg.Error as error:
        raise StateError(
            f"state database {redact_url(url)}: {_scrubbed(error, url)}",
            hint="check the URL, that the server is running, and the role's password "
            "(PGPASSWORD or ~/.pgpass) and grants (docs/guides/team.md)",
        ) from None


def connect(url: str) -> psycopg.Connection[Any]:
    with database_errors(url):
        return psycopg.connect(
            url,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            application_name="planner",
        )


def try_advisory_lock(conn: psycopg.Connection[Any], url: str, state_id: int) -> bool:
    with database_errors(url):
        row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASSID, state_id))
        found = row.fetchone()
    return bool(found and found[0])


def lock_pid(conn: psycopg.Connection[Any], url: str, state_id: int) -> int | None:
    """The server process that holds STATE_ID's advisory lock, or None when it is free."""
    with database_errors(url):
        row = conn.execute(LOCK_PID, (LOCK_CLASSID, state_id)).fetchone()
    return None if row is None else int(row[0])


def holder_of(row: tuple[Any, ...] | None, pid: int | None, *, any_row: bool) -> LockInfo | None:
    """The LockInfo of a `locks` ROW (its columns, then backend_pid) when it is server
    process PID's (ANY_ROW: whoever's it is)."""
    if row is None or (not any_row and (pid is None or row[-1] != pid)):
        return None
    return LockInfo.model_validate(dict(zip(_INFO_KEYS, row[:-1], strict=True)))


def record_holder(
    conn: psycopg.Connection[Any], url: str, schema: str, state_id: int, info: LockInfo
) -> None:
    """Write INFO as STATE_ID's lock row, over any row a dead holder left."""
    values = (info.id, info.who, info.host, info.pid, info.operation, info.created)
    updates = ", ".join(f"{c} = excluded.{c}" for c in LOCK_COLUMNS.split(", "))
    statement = (
        f"INSERT INTO {{s}}.locks (state_id, {LOCK_COLUMNS}, backend_pid) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
        f"ON CONFLICT (state_id) DO UPDATE SET {updates}, backend_pid = excluded.backend_pid"
    )
    extra = (info.ci_run, info.version, conn.info.backend_pid)
    with database_errors(url):
        conn.execute(query(statement, schema), (state_id, *values, *extra))


def release(
    conn: psycopg.Connection[Any],
    url: str,
    schema: str,
    state_id: int,
    info: LockInfo,
    *,
    forget: bool,
) -> None:
    """Unlock and close the lock's connection; FORGET=False is a crash as tests make it
    (the lock frees, its row stays)."""
    try:
        with database_errors(url):
            if forget:
                delete = "DELETE FROM {s}.locks WHERE state_id = %s AND lock_id = %s"
                conn.execute(query(delete, schema), (state_id, info.id))
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASSID, state_id))
    finally:
        conn.close()


def _scrubbed(error: psycopg.Error, url: str) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    password = urlsplit(url).password
    for spelling in {password, unquote(password or "")} - {None, ""}:
        text = text.replace(str(spelling), "***")
    return text
