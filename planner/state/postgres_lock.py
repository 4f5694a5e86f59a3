"""The PostgreSQL state's lock: a session-level advisory lock with a lease and fencing.

The lock is the advisory lock `(LOCK_CLASSID, states.id)` on a connection of its own,
held for the whole operation: keyed by the state's own row, two states never block each
other, and PostgreSQL drops it when the holder's connection dies. The `locks` row says who
holds it (with its lease and generation); a row whose advisory lock is free is stale: the
next holder waits out its lease, then replaces it. Each taking of the lock is one more
generation, which `PostgresBackend` writes with (a write of an older one is refused).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Protocol

import psycopg

from planner.state.lease import DEFAULT_LEASE_SECONDS, Heartbeat, takeover_lines, wait_out_lease
from planner.state.locking import (
    LockHandle,
    LockInfo,
    WaitNotice,
    acquire_polling,
    check_unlock,
    wait_for_lock,
)
from planner.state.postgres_db import (
    HOLDER_SELECT,
    connect,
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

# How long a contender waits for a new holder's record before saying it has none yet.
RECORD_WAIT_SECONDS = 2.0


class StateRows(Protocol):
    """What the lock needs of its backend: where the state is, and the data connection."""

    url: str
    schema: str

    @property
    def location(self) -> str: ...

    def _state_id(self, *, create: bool) -> int | None: ...

    def _one(self, template: str, params: tuple[Any, ...]) -> tuple[Any, ...] | None: ...

    def _connection(self) -> psycopg.Connection[Any]: ...


class PostgresLock:
    """The lock of ROWS's state; `generation` is the one this process holds (None: none)."""

    def __init__(self, rows: StateRows) -> None:
        self.rows = rows
        self.generation: int | None = None

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        rows = self.rows
        state_id = rows._state_id(create=True)
        assert state_id is not None
        conn = connect(rows.url)  # its own: the lock lives as long as this connection
        try:
            keep_alive(conn)
            taken = partial(try_advisory_lock, conn, rows.url, state_id)
            holder = partial(self._live_holder, state_id)
            wait_for_lock(rows.location, taken, holder, timeout, on_wait)
            self._wait_out_vanished_holder(conn, state_id, on_wait)
            generation = next_generation(conn, rows.url, rows.schema, state_id)
            info = LockInfo.for_this_process(operation, lease=lease, generation=generation)
            record_holder(conn, rows.url, rows.schema, state_id, info)
        except BaseException:
            conn.close()  # also drops the advisory lock if it was taken
            raise
        self.generation = generation
        where = (conn, rows.url, rows.schema, state_id, info)
        beat = Heartbeat(partial(renew, *where), location=rows.location, lease=lease)
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
        remaining = lease_left(conn, self.rows.url, self.rows.schema, state_id)
        if remaining <= 0:
            return
        left = self._holder(state_id, None, any_row=True)
        lines = left.describe() if left is not None else []

        def notice(seconds: float) -> None:
            if on_wait is not None:
                on_wait(takeover_lines(self.rows.location, seconds, lines))

        wait_out_lease(remaining, notice)

    def lock_info(self) -> LockInfo | None:
        state_id = self.rows._state_id(create=False)
        return None if state_id is None else self._holder(state_id, self._lock_pid(state_id))

    def force_unlock(self, lock_id: str) -> LockInfo:
        state_id = self.rows._state_id(create=False)
        pid = None if state_id is None else self._lock_pid(state_id)
        live = pid is not None
        recorded = None if state_id is None else self._holder(state_id, pid, any_row=not live)
        recorded = check_unlock(self.rows.location, lock_id, recorded, live=live)
        self.rows._one("DELETE FROM {s}.locks WHERE state_id = %s RETURNING 1", (state_id,))
        return recorded

    def _lock_pid(self, state_id: int) -> int | None:
        return lock_pid(self.rows._connection(), self.rows.url, state_id)

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
        return holder_of(self.rows._one(HOLDER_SELECT, (state_id,)), pid, any_row=any_row)
