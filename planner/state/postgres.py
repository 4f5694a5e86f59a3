"""State in PostgreSQL, shared by a team: versions, compare-and-swap writes, advisory locks.

Only this module and its helpers (`postgres_db`, `postgres_schema`) import psycopg (the
`postgres` extra); `planner.state.location` imports them when a `postgresql://` URL is used.

- A write inserts version `serial + 1` in one transaction; `(state_id, serial)` is unique,
  so of two writers that read the same serial one fails (nothing half-written).
- An apply appends its operations as rows of `operations` against the current version
  (compare-and-swap: refused when the version moved; the `states` row is locked FOR
  UPDATE by appends and writes alike), and a read replays them over that version, in
  one statement so a concurrent compaction is never half seen.
- The lock is a session-level advisory lock `(LOCK_CLASSID, states.id)` on a connection
  of its own, held for the whole operation: keyed by the state's own row, two states never
  block each other, and PostgreSQL drops it when the holder's connection dies. The
  `locks` row says who holds it; a row whose advisory lock is free is stale and is
  replaced by the next holder.
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
from planner.state.lease import (
    DEFAULT_LEASE_SECONDS,
    Heartbeat,
    fenced_error,
    takeover_lines,
    wait_out_lease,
)
from planner.state.location import DEFAULT_SCHEMA
from planner.state.locking import (
    LockHandle,
    LockInfo,
    WaitNotice,
    acquire_polling,
    check_unlock,
    wait_for_lock,
)
from planner.state.oplog import Group, base_moved_error, parse_lines, replay
from planner.state.postgres_db import (
    HOLDER_SELECT,
    ConnectionLostError,
    connect,
    database_errors,
    holder_of,
    keep_alive,
    lease_left,
    lock_pid,
    next_generation,
    record_holder,
    release,
    renew,
    try_advisory_lock,
)
from planner.state.postgres_schema import ensure_schema, query
from planner.state.siblings import owned_by
from planner.state.versions import StateVersion, missing_version_error

T = TypeVar("T")
# How long a contender waits for a new holder's record before saying it has none yet.
RECORD_WAIT_SECONDS = 2.0


class PostgresBackend:
    """A `StateBackend` for the state NAME in the database at URL (tables in SCHEMA)."""

    def __init__(self, url: str, *, name: str, schema: str = DEFAULT_SCHEMA) -> None:
        self.url = url
        self.name = name
        self.schema = schema
        self._conn: psycopg.Connection[Any] | None = None
        self._generation: int | None = None  # the lock generation this backend holds
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
        if self._generation is not None and current > self._generation:
            raise fenced_error(self.location, self._generation, current)
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
                current = self._read()
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
        state_id = self._state_id(create=True)
        assert state_id is not None
        conn = connect(self.url)  # its own: the lock lives as long as this connection
        try:
            keep_alive(conn)
            taken = partial(try_advisory_lock, conn, self.url, state_id)
            holder = partial(self._live_holder, state_id)
            wait_for_lock(self.location, taken, holder, timeout, on_wait)
            self._wait_out_vanished_holder(conn, state_id, on_wait)
            generation = next_generation(conn, self.url, self.schema, state_id)
            info = LockInfo.for_this_process(operation, lease=lease, generation=generation)
            record_holder(conn, self.url, self.schema, state_id, info)
        except BaseException:
            conn.close()  # also drops the advisory lock if it was taken
            raise
        self._generation = generation
        where = (conn, self.url, self.schema, state_id, info)
        beat = Heartbeat(partial(renew, *where), location=self.location, lease=lease)
        return LockHandle(
            info,
            lambda: release(*where, forget=True),
            lambda: release(*where, forget=False),
            beat,
        )

    def _wait_out_vanished_holder(
        self, conn: psycopg.Connection[Any], state_id: int, on_wait: WaitNotice | None
    ) -> None:
        """A `locks` row while this process holds the advisory lock was left by a holder
        that vanished without releasing: wait out its lease before doing anything."""
        remaining = lease_left(conn, self.url, self.schema, state_id)
        if remaining <= 0:
            return
        left = self._holder(state_id, None, any_row=True)
        lines = left.describe() if left is not None else []

        def notice(seconds: float) -> None:
            if on_wait is not None:
                on_wait(takeover_lines(self.location, seconds, lines))

        wait_out_lease(remaining, notice)

    def lock_info(self) -> LockInfo | None:
        state_id = self._state_id(create=False)
        return None if state_id is None else self._holder(state_id, self._lock_pid(state_id))

    def force_unlock(self, lock_id: str) -> LockInfo:
        state_id = self._state_id(create=False)
        pid = None if state_id is None else self._lock_pid(state_id)
        live = pid is not None
        recorded = None if state_id is None else self._holder(state_id, pid, any_row=not live)
        recorded = check_unlock(self.location, lock_id, recorded, live=live)
        self._one("DELETE FROM {s}.locks WHERE state_id = %s RETURNING 1", (state_id,))
        return recorded

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

    def _lock_pid(self, state_id: int) -> int | None:
        return lock_pid(self._connection(), self.url, state_id)

    def _live_holder(self, state_id: int) -> LockInfo | None:
        """The record of whoever holds the lock now, given a moment to write it (a new
        holder records itself just after taking the lock; a row left by a dead one is
        never shown as the holder)."""
        found: list[LockInfo] = []

        def recorded() -> bool:
            holder = self._holder(state_id, self._lock_pid(state_id))
            found[:] = [holder] if holder is not None else []
            return bool(found)

        acquire_polling(recorded, RECORD_WAIT_SECONDS)
        return found[0] if found else None

    def _holder(self, state_id: int, pid: int | None, *, any_row: bool = False) -> LockInfo | None:
        """The lock row of server process PID (ANY_ROW: whatever row there is)."""
        return holder_of(self._one(HOLDER_SELECT, (state_id,)), pid, any_row=any_row)

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
