"""A state store in memory, with the same rules as the file one (for tests of other parts).

It keeps the serialized text, not the object, so checksums and parsing are exercised
exactly as with a file. Two `InMemoryBackend`s on one `MemoryStore` behave like two
processes on one state file.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from functools import partial

from planner.state.backend import next_version
from planner.state.document import (
    StateDocument,
    advance,
    dump_state,
    iso_utc,
    parse_state,
    utc_now,
)
from planner.state.lease import DEFAULT_LEASE_SECONDS, fenced_error, wait_out_lease
from planner.state.locking import (
    LockHandle,
    LockInfo,
    WaitNotice,
    check_unlock,
    lease_remaining,
    wait_for_lock,
)
from planner.state.oplog import Group, check_base, parse_lines, replay
from planner.state.versions import StateVersion, missing_version_error, version_of


@dataclass
class MemoryStore:
    """The shared storage: the state text, its backup, every version, the plan key, the lock."""

    text: str | None = None
    backup: str | None = None
    versions: list[tuple[str, str]] = field(default_factory=list)  # (text, created), oldest first
    log: list[str] = field(default_factory=list)  # operation-log lines (planner.state.oplog)
    head: tuple[str, int] | None = None  # (lineage, serial) of `text` once checked or written
    key: bytes | None = None
    holder: LockInfo | None = None
    holder_alive: bool = False
    generation: int = 0  # how many times the lock was taken (fencing)
    mutex: threading.Lock = field(default_factory=threading.Lock)


class InMemoryBackend:
    """A `StateBackend` over a `MemoryStore` (a new one unless given)."""

    def __init__(self, store: MemoryStore | None = None, *, name: str = "memory") -> None:
        self.store = store if store is not None else MemoryStore()
        self.name = name
        self._generation: int | None = None  # the lock generation this backend holds

    @property
    def location(self) -> str:
        return self.name

    @property
    def address(self) -> str:
        return self.name

    def read(self) -> StateDocument | None:
        with self.store.mutex:
            text, log = self.store.text, "".join(self.store.log)
        if text is None:
            return None
        return replay(self._parse(text), parse_lines(log, source=f"{self.name}.journal"))

    def managed_elsewhere(self, config_stem: str) -> dict[str, str]:
        """A store in memory has no other states: nothing is managed elsewhere."""
        return {}

    def append(self, group: Group) -> None:
        with self.store.mutex:
            self._check_fence()
            if self.store.head != (group.lineage, group.base):  # parse only when it may fail
                current = None if self.store.text is None else self._parse(self.store.text)
                check_base(current, group, self.location)
                self.store.head = (group.lineage, group.base)
            self.store.log.append(group.line())

    def write(self, doc: StateDocument, *, force: bool = False) -> StateDocument:
        with self.store.mutex:
            self._check_fence()
            previous = self.store.text
            current = None if previous is None else self._parse(previous)
            written = next_version(current, doc, self.location, force=force)
            self.store.backup = previous if previous is not None else self.store.backup
            self.store.text = dump_state(written)
            created = iso_utc(utc_now(), timespec="seconds")
            self.store.versions.append((self.store.text, created))
            self.store.log.clear()  # folded into this version, or overwritten by it
            self.store.head = (written.lineage, written.serial)
        advance(doc, written)
        return written

    def history(self) -> list[StateVersion]:
        who = LockInfo.for_this_process("write").who
        return [
            version_of(self._parse(text), created=created, written_by=who)
            for text, created in reversed(self.store.versions)
        ]

    def read_version(self, serial: int) -> StateDocument:
        kept = [self._parse(text) for text, _ in reversed(self.store.versions)]  # no log
        for doc in kept:
            if doc.serial == serial:
                return doc
        raise missing_version_error(self.location, serial, [doc.serial for doc in kept])

    def plan_key(self, *, create: bool) -> bytes | None:
        with self.store.mutex:
            if self.store.key is None and create:
                self.store.key = secrets.token_bytes(32)
            return self.store.key

    def close(self) -> None:
        """Nothing to let go of."""

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        info = LockInfo.for_this_process(operation, lease=lease)
        left: list[LockInfo | None] = []
        taken = partial(self._try_take, info, left)
        wait_for_lock(self.location, taken, self.lock_info, timeout, on_wait)
        if left and left[0] is not None:  # its holder never released it: wait out its lease
            wait_out_lease(lease_remaining(left[0]), None)
        with self.store.mutex:
            self.store.generation += 1
            info.generation = self._generation = self.store.generation
            info.renewed = iso_utc(utc_now())
        return LockHandle(info, lambda: self._drop(info, forget=True), lambda: self._drop(info))

    def lock_info(self) -> LockInfo | None:
        with self.store.mutex:
            return self.store.holder if self.store.holder_alive else None

    def force_unlock(self, lock_id: str) -> LockInfo:
        with self.store.mutex:
            live = self.store.holder_alive
            recorded = check_unlock(self.location, lock_id, self.store.holder, live=live)
            self.store.holder = None
            return recorded

    def _try_take(self, info: LockInfo, left: list[LockInfo | None]) -> bool:
        """Take the lock when it is free; LEFT gets the record a holder that never
        released it (a crashed one) left."""
        with self.store.mutex:
            if self.store.holder_alive:
                return False
            left[:] = [self.store.holder]
            self.store.holder, self.store.holder_alive = info, True
            return True

    def _check_fence(self) -> None:
        if self._generation is not None and self.store.generation > self._generation:
            raise fenced_error(self.location, self._generation, self.store.generation)

    def _drop(self, info: LockInfo, *, forget: bool = False) -> None:
        with self.store.mutex:
            if self.store.holder is not None and self.store.holder.id == info.id:
                self.store.holder_alive = False
                if forget:
                    self.store.holder = None

    def _parse(self, text: str) -> StateDocument:
        backup = f"{self.name}.backup" if self.store.backup is not None else None
        return parse_state(text, source=self.location, backup=backup)
