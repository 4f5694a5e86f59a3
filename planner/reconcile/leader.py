"""Leader election among `planner reconcile` replicas: one leads, the others stand by.

The leadership is a lock of its own beside the state lock, taken with the state lock's
machinery (so it has the same lease, heartbeat and fencing, `planner.state.lease`):

- PostgreSQL: the advisory lock of a companion row `<state name>:reconcile-leader` in the
  state's schema (`:` is never in a state's name, so it is no state's key), on a
  connection of its own: PostgreSQL frees it when the leader's process dies, and a
  standby taking it over waits out the dead leader's lease first. Replicas poll for it.
- A state file `X`: an OS lock on `X.reconcile.lock` (its holder in `.lock.json`). Only
  one replica may run on a file state: a second one is refused, naming the first.
- Any other backend (in-memory, tests): one process, always the leader.

`try_lead()` blocks (a takeover waits out a lease): call it off the event loop; it raises
StateError when the database cannot be asked (the loop counts a failed cycle). `check()`
raises LockLostError once the leadership is lost; the loop makes every request of a heal
check it, so a deposed leader sends nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planner.errors import PlannerError, StateError, StateLockedError
from planner.state.backend import StateBackend
from planner.state.filelock import FileLock
from planner.state.localfile import LocalFileBackend, write_atomic
from planner.state.location import is_postgres_url
from planner.state.locking import LockHandle, LockInfo

LEADER_OPERATION = "reconcile"
LEADER_SUFFIX = ":reconcile-leader"
FILE_SUFFIX = ".reconcile"


class ReplicaRefusedError(PlannerError):
    """A second replica on a state that allows only one (a file state)."""

    code = "reconcile-replica"


@dataclass
class LeaderLock:
    """The lock of a companion state (PostgreSQL) or lock file (a state file)."""

    locker: StateBackend | FileLock

    def lock(self, operation: str, timeout: float = 0.0, *, lease: float) -> LockHandle:
        return self.locker.lock(operation, timeout, lease=lease)

    def lock_info(self) -> LockInfo | None:
        return self.locker.lock_info()

    def close(self) -> None:
        if not isinstance(self.locker, FileLock):
            self.locker.close()


class Leadership:
    """This replica's part in the election over LOCK (EXCLUSIVE: a replica that cannot
    lead is refused instead of standing by)."""

    def __init__(self, lock: LeaderLock | None, *, location: str, exclusive: bool) -> None:
        self._lock = lock
        self.location = location
        self.exclusive = exclusive
        self._handle: LockHandle | None = None
        self.holder: str | None = None  # who leads, as the status page shows it

    @property
    def is_leader(self) -> bool:
        return self._lock is None or (self._handle is not None and self._handle.is_held)

    def try_lead(self, lease: float) -> bool:
        """Lead if this replica does or can (blocking: a takeover waits out a lease);
        False: another replica leads (`holder` names it), or this one lost the lead."""
        if self._lock is None:
            return True
        if self._handle is not None:
            if self._is_still_held(self._handle):
                return True
            self.resign()
        try:
            self._handle = self._lock.lock(LEADER_OPERATION, 0.0, lease=lease)
        except StateLockedError as error:
            if self.exclusive:
                raise refused_error(self.location, error) from None
            self.holder = describe(self._lock.lock_info())
            return False
        except StateError:
            self._lock.close()  # a connection the server dropped: a new one next time
            raise
        self.holder = describe(self._handle.info)
        return True

    def _is_still_held(self, handle: LockHandle) -> bool:
        try:
            handle.check()
        except StateLockedError:
            return False
        return handle.is_held

    def check(self) -> None:
        """LockLostError once the leadership is lost (nothing when there is none to lose)."""
        if self._handle is not None:
            self._handle.check()

    def resign(self) -> None:
        """Give the leadership up (a standby may take it at once)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.release()
        self.holder = None

    def close(self) -> None:
        self.resign()
        if self._lock is not None:
            self._lock.close()


def describe(info: LockInfo | None) -> str | None:
    """`user@host (pid N)`: who leads."""
    return None if info is None else f"{info.who} (pid {info.pid})"


def refused_error(location: str, locked: StateLockedError) -> ReplicaRefusedError:
    held = [line for line in locked.details if not line.startswith("state:")]
    return ReplicaRefusedError(
        "another `planner reconcile` already runs on this state: a state file allows one replica",
        details=[f"state: {location}", *held],
        hint="stop the other replica first; to run several (one leads, the others stand "
        "by), keep the state in PostgreSQL",
    )


def election_for(backend: StateBackend) -> Leadership:
    """The election of the replicas sharing BACKEND's state."""
    if is_postgres_url(backend.address):
        from planner.state.postgres import PostgresBackend  # psycopg: the `postgres` extra

        assert isinstance(backend, PostgresBackend)
        companion = PostgresBackend(
            backend.url, name=backend.name + LEADER_SUFFIX, schema=backend.schema
        )
        lock = LeaderLock(companion)
        return Leadership(lock, location=backend.location, exclusive=False)
    if isinstance(backend, LocalFileBackend):
        path = Path(str(backend.path) + FILE_SUFFIX)
        file_lock = FileLock(path, f"{backend.location}{FILE_SUFFIX}", write_atomic, _nothing)
        return Leadership(LeaderLock(file_lock), location=backend.location, exclusive=True)
    return Leadership(None, location=backend.location, exclusive=True)


def _nothing() -> None:
    """Nothing to do once the file lock is taken (no temp files of a leader's own)."""
