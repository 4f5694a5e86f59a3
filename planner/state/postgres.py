"""State in PostgreSQL, shared by a team: versions, compare-and-swap writes, advisory locks.

Only this module and its helpers (`postgres_db`, `postgres_lock`, `postgres_schema`)
import psycopg (the `postgres` extra); `planner.state.location` imports them when a
`postgresql://` URL is used.

- A write inserts version `serial + 1` in one transaction; `(state_id, serial)` is unique,
  so of two writers that read the same serial one fails (nothing half-written).
- An apply appends its operations as rows of `operations` against the current version
  (compare-and-swap: refused when the version moved; the `states` row is locked FOR
  UPDATE by appends and writes alike), and a read replays them over that version, in
  one statement so a concurrent compaction is never half seen.
- The lock (`postgres_lock`) is a session-level advisory lock on a connection of its
  own, keyed by the state's row, with a lease; a write carries its lock generation and
  the store refuses an older one.
- The URL is printed only through `redact_url`, and errors never carry the password.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, TypeVar

import psycopg

from planner.errors import StateError
from planner.secrets import redact_url, url_without_password
from planner.state.backend import next_version
from planner.state.document import StateDocument, advance, dump_state, iso_utc, parse_state
from planner.state.elsewhere import owned_by
from planner.state.lease import DEFAULT_LEASE_SECONDS, fenced_error
from planner.state.location import DEFAULT_SCHEMA
from planner.state.locking import LockHandle, LockInfo, WaitNotice
from planner.state.oplog import Group, base_moved_error, parse_lines, replay
from planner.state.postgres_db import ConnectionLostError, connect, database_errors
from planner.state.postgres_lock import PostgresLock
from planner.state.postgres_schema import ensure_schema, query
from planner.state.versions import StateVersion, missing_version_error

T = TypeVar("T")


class PostgresBackend:
    """A `StateBackend` for the state NAME in the database at URL (tables in SCHEMA)."""

    def __init__(self, url: str, *, name: str, schema: str = DEFAULT_SCHEMA) -> None:
        self.url = url
        self.name = name
        self.schema = schema
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = PostgresLock(self)  # its generation is the one this backend holds
        self._committing = False  # a lost connection now may have committed: no retry

    @property
    def location(self) -> str:
        scope = self.name if self.schema == DEFAULT_SCHEMA else f"{self.schema}/{self.name}"
        return f"{redact_url(self.url)}#{scope}"

    @property
    def address(self) -> str:
        return url_without_password(self.url)

    def read(self) -> StateDocument | None:
        return self._reconnecting(self._read)

    def _read(self) -> StateDocument | None:
        state_id = self._state_id(create=False)
        return None if state_id is None else self._read_state(state_id)

    def managed_elsewhere(self, config_stem: str) -> dict[str, str]:
        """Deployment id -> the name of every other state of the schema recording it."""
        del config_stem  # a schema is one team's: every state in it counts
        rows = self._all("SELECT id, name FROM {s}.states WHERE name <> %s", (self.name,))
        return owned_by((str(name), partial(self._read_state, int(i))) for i, name in rows)

    def _read_state(self, state_id: int) -> StateDocument | None:
        row = self._one(
            "SELECT v.serial, v.document, (SELECT string_agg(o.line, '' ORDER BY o.seq) "
            "FROM {s}.operations o WHERE o.state_id = v.state_id AND o.base_serial = v.serial) "
            "FROM {s}.versions v WHERE v.state_id = %s ORDER BY v.serial DESC LIMIT 1",
            (state_id,),
        )
        if row is None:
            return None
        groups = parse_lines(row[2] or "", source=f"{self.location} operations")
        return replay(self._parse(row[1], row[0]), groups)

    def _stored_version(self, state_id: int) -> StateDocument | None:
        """The stored version without its operations: what a write compares with (and
        replaces the operations of), as a file's write reads the file without its log;
        replaying them would build a second copy of the whole state for nothing."""
        row = self._one(
            "SELECT serial, document FROM {s}.versions WHERE state_id = %s "
            "ORDER BY serial DESC LIMIT 1",
            (state_id,),
        )
        return None if row is None else self._parse(row[1], row[0])

    def append(self, group: Group) -> None:
        self._reconnecting(partial(self._append, group))

    def _append(self, group: Group) -> None:
        state_id = self._state_id(create=False)
        with self._errors(), self._connection().transaction():
            head = None if state_id is None else self._head(state_id)
            if head != (group.lineage, group.base):
                stored = None if head is None else head[1]
                raise base_moved_error(self.location, stored, group.base)
            self._one(
                "INSERT INTO {s}.operations (state_id, base_serial, line) VALUES (%s, %s, %s) "
                "RETURNING seq",
                (state_id, group.base, group.line()),
            )
            self._committing = True

    def _head(self, state_id: int) -> tuple[str, int] | None:
        """(lineage, serial) of the stored version, its state row locked till the end of
        the transaction (appends and writes take turns)."""
        locked = self._one(
            "SELECT lock_generation FROM {s}.states WHERE id = %s FOR UPDATE", (state_id,)
        )
        current = 0 if locked is None else int(locked[0])
        held = self._lock.generation
        if held is not None and current > held:
            raise fenced_error(self.location, held, current)
        row = self._one(
            "SELECT lineage, serial FROM {s}.versions WHERE state_id = %s "
            "ORDER BY serial DESC LIMIT 1",
            (state_id,),
        )
        return None if row is None else (str(row[0]), int(row[1]))

    def write(self, doc: StateDocument, *, force: bool = False) -> StateDocument:
        return self._reconnecting(partial(self._write, doc, force))

    def _write(self, doc: StateDocument, force: bool) -> StateDocument:
        state_id = self._state_id(create=True)
        assert state_id is not None
        conn = self._connection()
        expected = 0
        try:
            with self._errors(), conn.transaction():
                self._head(state_id)  # locks the state row: no append slips in between
                current = self._stored_version(state_id)
                expected = 0 if current is None else current.serial
                written = next_version(current, doc, self.location, force=force)
                self._insert_version(state_id, written)
                self._committing = True
        except psycopg.errors.UniqueViolation:
            raise self._moved_error(expected) from None
        advance(doc, written)
        return written

    def history(self) -> list[StateVersion]:
        state_id = self._state_id(create=False)
        if state_id is None:
            return []
        rows = self._all(
            "SELECT serial, lineage, checksum, created_at, written_by, deployments "
            "FROM {s}.versions WHERE state_id = %s ORDER BY serial DESC",
            (state_id,),
        )
        return [
            StateVersion(
                serial=serial,
                lineage=lineage,
                checksum=checksum,
                created=iso_utc(created, timespec="seconds"),
                written_by=who,
                deployments=count,
            )
            for serial, lineage, checksum, created, who, count in rows
        ]

    def read_version(self, serial: int) -> StateDocument:
        state_id = self._state_id(create=False)
        row = None
        if state_id is not None:
            row = self._one(
                "SELECT document FROM {s}.versions WHERE state_id = %s AND serial = %s",
                (state_id, serial),
            )
        if row is None:
            kept = [version.serial for version in self.history()]
            raise missing_version_error(self.location, serial, kept)
        return self._parse(row[0], serial)

    def plan_key(self, *, create: bool) -> bytes | None:
        state_id = self._state_id(create=create)
        if state_id is None:
            return None
        if create:
            self._one(
                "UPDATE {s}.states SET plan_key = %s WHERE id = %s AND plan_key IS NULL "
                "RETURNING id",
                (secrets.token_hex(32), state_id),
            )
        row = self._one("SELECT plan_key FROM {s}.states WHERE id = %s", (state_id,))
        return None if row is None or row[0] is None else bytes.fromhex(row[0])

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        return self._lock.lock(operation, timeout, on_wait, lease=lease)

    def lock_info(self) -> LockInfo | None:
        return self._lock.lock_info()

    def force_unlock(self, lock_id: str) -> LockInfo:
        return self._lock.force_unlock(lock_id)

    # --- the database -----------------------------------------------------------------

    def _reconnecting(self, work: Callable[[], T]) -> T:
        """WORK (one read, append or write), run once more on a new connection when the
        data connection was lost before anything could have been committed (a server
        that ends idle sessions, a pooler, a restart); a loss at commit is not retried."""
        self._committing = False
        try:
            return work()
        except ConnectionLostError:
            if self._committing:
                raise
            self.close()
            return work()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = connect(self.url)
            try:
                with self._errors():
                    ensure_schema(conn, self.schema, location=self.location)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _one(self, template: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None:
        with self._errors():
            return self._connection().execute(query(template, self.schema), params).fetchone()

    def _all(self, template: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._errors():
            return self._connection().execute(query(template, self.schema), params).fetchall()

    def _state_id(self, *, create: bool) -> int | None:
        select = "SELECT id FROM {s}.states WHERE name = %s"
        row = self._one(select, (self.name,))
        if row is None and create:
            insert = "INSERT INTO {s}.states (name) VALUES (%s) ON CONFLICT (name) DO NOTHING"
            self._one(insert + " RETURNING id", (self.name,))
            row = self._one(select, (self.name,))
        return None if row is None else int(row[0])

    def _insert_version(self, state_id: int, written: StateDocument) -> None:
        self._one(
            "INSERT INTO {s}.versions (state_id, serial, lineage, document, checksum, "
            "deployments, written_by) VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING serial",
            (
                state_id,
                written.serial,
                written.lineage,
                dump_state(written),
                written.checksum,
                len(written.deployments),
                _writer(),
            ),
        )
        self._one(
            "UPDATE {s}.states SET lineage = %s WHERE id = %s RETURNING id",
            (written.lineage, state_id),
        )
        # folded into this version (or overwritten by it)
        self._one(
            "DELETE FROM {s}.operations WHERE state_id = %s AND base_serial < %s RETURNING 1",
            (state_id, written.serial),
        )

    def _moved_error(self, expected: int) -> StateError:
        stored = self.read()
        serial = "-" if stored is None else stored.serial
        return StateError(
            f"state {self.location} moved while it was being written (serial {serial} "
            f"stored, {expected} expected): another writer got there first",
            hint="nothing was written; run the command again, so it plans from the current state",
        )

    def _parse(self, text: str, serial: int) -> StateDocument:
        try:
            return parse_state(text, source=self.location)
        except StateError as error:
            error.hint = (
                f"version {serial} is damaged: roll back to an intact one with `planner state "
                "rollback SERIAL` (`planner state history` lists them)"
            )
            raise

    def _errors(self) -> AbstractContextManager[None]:
        return database_errors(self.url)


def _writer() -> str:
    """Who writes a version: `user@host pid N` (which run wrote what, in the history)."""
    me = LockInfo.for_this_process("write")
    return f"{me.who} pid {me.pid}"
