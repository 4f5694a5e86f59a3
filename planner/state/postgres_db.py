"""PostgreSQL plumbing of the state backend: connections, errors, and the lock's rows.

Errors: every psycopg failure becomes a StateError naming the database by its redacted
URL, with the password scrubbed from the server's message too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

import psycopg

from planner.command_lines import PASSWORD_SOURCES
from planner.errors import StateError
from planner.secrets import redact_url, url_has_password
from planner.state.document import iso_utc
from planner.state.locking import LockInfo
from planner.state.postgres_schema import LOCK_CLASSID, query

CONNECT_TIMEOUT_SECONDS = 10
# The server process holding a state's advisory lock (no row: the lock is free).
LOCK_PID = (
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid::text::bigint = %s AND objid::text::bigint = %s AND objsubid = 2"
)
LOCK_COLUMNS = "lock_id, who, host, pid, operation, since, ci_run, tool_version, lease, generation"
_INFO_KEYS = (
    "id", "who", "host", "pid", "operation", "created", "ci_run", "version", "lease",
    "generation", "renewed",
)  # fmt: skip
# A holder's record: its columns, its last renewal, and the server process holding it.
HOLDER_SELECT = f"SELECT {LOCK_COLUMNS}, renewed, backend_pid FROM {{s}}.locks WHERE state_id = %s"
# Seconds left of the lease of the holder whose row is there (the lock is free: it vanished).
LEASE_LEFT = "SELECT EXTRACT(EPOCH FROM renewed - now()) + lease FROM {s}.locks WHERE state_id = %s"


class ConnectionLostError(StateError):
    """The connection to the state database was dropped (server restart, a terminated
    backend, `idle_session_timeout`, a pooler): what was not committed may be retried."""


@contextmanager
def database_errors(url: str, *, connecting: bool = False) -> Iterator[None]:
    """psycopg's connection and query failures as a StateError, password removed
    (a unique violation passes: it is the compare-and-swap's answer); a connection lost
    once made is a ConnectionLostError."""
    try:
        yield
    except psycopg.errors.UniqueViolation:
        raise
    except psycopg.OperationalError as error:
        if connecting:
            raise _error(url, error) from None
        raise ConnectionLostError(
            f"state database {redact_url(url)}: the connection was lost: {_scrubbed(error, url)}",
            hint="the server dropped the connection (a restart, a terminated backend, "
            "idle_session_timeout or a pooler); run the command again",
        ) from None
    except psycopg.Error as error:
        raise _error(url, error) from None


def _error(url: str, error: psycopg.Error) -> StateError:
    password = "" if url_has_password(url) else f"; the URL has no password: {PASSWORD_SOURCES}"
    return StateError(
        f"state database {redact_url(url)}: {_scrubbed(error, url)}",
        hint="check the URL, that the server is running, and the role's password "
        f"(PGPASSWORD or ~/.pgpass) and grants (docs/guides/team.md){password}",
    )


def connect(url: str) -> psycopg.Connection[Any]:
    with database_errors(url, connecting=True):
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
    """The LockInfo of a `locks` ROW (HOLDER_SELECT's) when it is server process PID's
    (ANY_ROW: whoever's it is)."""
    if row is None or (not any_row and (pid is None or row[-1] != pid)):
        return None
    values = dict(zip(_INFO_KEYS, row[:-1], strict=True))
    values["renewed"] = iso_utc(values["renewed"])
    return LockInfo.model_validate(values)


def keep_alive(conn: psycopg.Connection[Any]) -> None:
    """Exempt the lock's connection from `idle_session_timeout` (its heartbeat keeps it
    busy every few seconds, a shorter timeout would end it; servers before 14 have none)."""
    with contextlib.suppress(psycopg.Error):
        conn.execute("SET idle_session_timeout = 0")


def next_generation(conn: psycopg.Connection[Any], url: str, schema: str, state_id: int) -> int:
    """One more taking of STATE_ID's lock: the new holder's generation."""
    statement = (
        "UPDATE {s}.states SET lock_generation = lock_generation + 1 WHERE id = %s "
        "RETURNING lock_generation"
    )
    with database_errors(url):
        row = conn.execute(query(statement, schema), (state_id,)).fetchone()
    assert row is not None  # the state row exists: its id was read just before
    return int(row[0])


def lease_left(conn: psycopg.Connection[Any], url: str, schema: str, state_id: int) -> float:
    """Seconds left of the lease of a holder that vanished without releasing (0: none)."""
    with database_errors(url):
        row = conn.execute(query(LEASE_LEFT, schema), (state_id,)).fetchone()
    return 0.0 if row is None else float(row[0])


def renew(
    conn: psycopg.Connection[Any], url: str, schema: str, state_id: int, info: LockInfo
) -> None:
    """Prove INFO still holds the lock on its own connection, and record the renewal."""
    statement = (
        "UPDATE {s}.locks SET renewed = now() WHERE state_id = %s AND lock_id = %s "
        "AND backend_pid = pg_backend_pid() RETURNING 1"
    )
    with database_errors(url):
        row = conn.execute(query(statement, schema), (state_id, info.id)).fetchone()
    if row is None:
        raise StateError("its record in the locks table was removed or replaced")


def record_holder(
    conn: psycopg.Connection[Any], url: str, schema: str, state_id: int, info: LockInfo
) -> None:
    """Write INFO as STATE_ID's lock row, over any row a dead holder left."""
    values = (info.id, info.who, info.host, info.pid, info.operation, info.created)
    updates = ", ".join(f"{c} = excluded.{c}" for c in LOCK_COLUMNS.split(", "))
    statement = (
        f"INSERT INTO {{s}}.locks (state_id, {LOCK_COLUMNS}, backend_pid, renewed) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now()) "
        f"ON CONFLICT (state_id) DO UPDATE SET {updates}, "
        "backend_pid = excluded.backend_pid, renewed = now()"
    )
    extra = (info.ci_run, info.version, info.lease, info.generation, conn.info.backend_pid)
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
