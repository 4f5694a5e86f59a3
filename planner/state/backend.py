"""The interface every state store implements, and the write rules they share."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from planner.errors import StateError
from planner.state.document import StateDocument, sealed
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle, LockInfo, WaitNotice
from planner.state.oplog import Group
from planner.state.versions import StateVersion


class StateBackend(Protocol):
    """Where a state document lives, and the lock that serialises writers.

    - `location` is how messages name the store (a URL's password masked); `address` is
      what `--state` takes to open it again (a file's real path, a URL without password).
    - `read()` returns None when there is no state yet; a corrupt, foreign-format or
      hand-edited state is a StateError.
    - `write(doc)` bumps the serial, recomputes the checksum and returns what was
      written; it also advances DOC's serial, so DOC can be changed and written again.
      A document older than the stored one (lower serial, or another lineage) is refused
      (`force=True`: written anyway, over whatever is stored, with the next serial).
      Two writers of the same serial never both succeed (compare-and-swap).
    - `append(group)` adds one commit group of small changes to the operation log of the
      stored version (planner.state.oplog), durably, without writing a version; refused
      (StateError) unless the group's base is the stored version. `read()` returns the
      stored version with its log replayed; `write` folds the log into the new version.
    - `history()` lists the versions kept, newest first; `read_version(serial)` reads one
      (a StateError naming the kept serials when it is not kept). How many are kept is the
      backend's: every one in PostgreSQL and in memory, the current one and the one before
      it (`.backup`) for a file.
    - `managed_elsewhere(config_stem)` maps the deployment ids the other states of the
      same config record to the state recording each (file: the state files beside it of
      that config stem, `<stem>[.<env>].state.json`; PostgreSQL: every other state of the
      schema): planner.state.elsewhere.
    - `plan_key(create=...)` is the key that seals saved plans of this state (None when
      there is none and CREATE is false).
    - `close()` lets go of connections; the backend is not used after it.
    - `lock(operation, timeout, lease=)` waits up to TIMEOUT seconds (0: fail at once),
      then raises StateLockedError naming the holder. The handle is a context manager.
      Leases (planner.state.lease): a lock left by a holder that vanished is taken only
      after its LEASE (recorded with it) ran out; the holder renews it (file, PostgreSQL:
      a heartbeat thread) and `handle.check()` raises LockLostError once it cannot.
      Fencing: each taking of the lock is one generation more; `write` and `append` of
      a backend that took the lock are refused (LockLostError) once a newer generation
      took it over.
    - `lock_info()` is the live holder, or None when the lock is free; it only reads
      (a plan calls it without touching the lock).
    - `force_unlock(lock_id)` clears a lock left by a holder that died, when the id
      matches; it refuses a lock a live holder still has. Returns what it cleared.
    """

    @property
    def location(self) -> str: ...

    @property
    def address(self) -> str: ...

    def read(self) -> StateDocument | None: ...

    def write(self, doc: StateDocument, *, force: bool = False) -> StateDocument: ...

    def append(self, group: Group) -> None: ...

    def managed_elsewhere(self, config_stem: str) -> dict[str, str]: ...

    def history(self) -> list[StateVersion]: ...

    def read_version(self, serial: int) -> StateDocument: ...

    def plan_key(self, *, create: bool) -> bytes | None: ...

    def close(self) -> None: ...

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        """The lock, waiting up to TIMEOUT s; ON_WAIT hears once who holds it when the
        first try fails (the holder's record, never the waiting process's own)."""
        ...

    def lock_info(self) -> LockInfo | None: ...

    def force_unlock(self, lock_id: str) -> LockInfo: ...


def next_serial(
    current: StateDocument | None, doc: StateDocument, location: str, *, force: bool = False
) -> int:
    """The serial of the next write of DOC over CURRENT, or a StateError if DOC is stale
    (FORCE: never stale)."""
    if current is None:
        return doc.serial + 1
    if force:
        return max(doc.serial, current.serial) + 1
    if current.lineage != doc.lineage:
        raise StateError(
            f"state {location} was replaced by a different state since it was read "
            f"(lineage {current.lineage}, not {doc.lineage})",
            hint="run the command again; if you replaced the file on purpose, check it first",
        )
    if doc.serial < current.serial:
        raise StateError(
            f"state {location} changed since it was read (serial {current.serial} stored, "
            f"{doc.serial} here): someone else wrote it in between",
            hint="run the command again, so it plans from the current state",
        )
    return max(doc.serial, current.serial) + 1


def next_version(
    current: StateDocument | None, doc: StateDocument, location: str, *, force: bool = False
) -> StateDocument:
    """DOC sealed as the next write over CURRENT (see `next_serial`), ready to store."""
    return sealed(doc, next_serial(current, doc, location, force=force))


def create_if_absent(
    backend: StateBackend,
    new: StateDocument,
    endpoint: str,
    tenant_id: str | None,
    base: Path | None = None,
) -> StateDocument:
    """NEW (a state never written) written now when there is still no state, without the
    lock; of two processes creating it at once one write wins (compare-and-swap) and the
    other gets that state back, checked to belong to ENDPOINT and TENANT_ID."""
    try:
        return backend.write(new)
    except StateError:
        stored = backend.read()
        if stored is None:
            raise
    stored.check_belongs_to(endpoint, tenant_id, source=backend.location, base=base)
    return stored


def read_or_create(
    backend: StateBackend, endpoint: str, tenant_id: str | None, base: Path | None = None
) -> StateDocument:
    """The stored state, checked to belong to ENDPOINT and TENANT_ID (BASE: the config's
    directory, for a relative embedded endpoint), or a new empty one.

    The new document is not written: the first `write` creates the store.
    """
    doc = backend.read()
    if doc is None:
        return StateDocument.new(endpoint, tenant_id)
    doc.check_belongs_to(endpoint, tenant_id, source=backend.location, base=base)
    return doc
