"""The lock of a state file `X`: an OS lock on `X.lock`, who holds it in `X.lock.json`.

- `X.lock` is never deleted, so every process locks the same inode; it holds the lock
  generation, one more each time the lock is taken (fencing: a write of an older
  generation is refused, `check_fence`).
- `X.lock.json` says who holds the lock, the lease and the last renewal (the heartbeat
  rewrites it). The OS lock is the truth for contenders; a record left while the OS lock
  is free was left by a holder that died without releasing: the next holder waits out
  its lease first (planner.state.lease).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from planner.errors import StateError
from planner.files import os_reason
from planner.state.document import iso_utc, utc_now
from planner.state.lease import (
    DEFAULT_LEASE_SECONDS,
    Heartbeat,
    fenced_error,
    takeover_lines,
    wait_out_lease,
)
from planner.state.locking import (
    LockHandle,
    LockInfo,
    WaitNotice,
    check_unlock,
    lease_remaining,
    wait_for_lock,
)

FILE_MODE = 0o600


class FileLock:
    """The lock of the state file PATH (named LOCATION in messages); WRITE_ATOMIC
    replaces a file, ON_TAKEN runs once the lock is taken."""

    def __init__(
        self,
        path: Path,
        location: str,
        write_atomic: Callable[[Path, str], None],
        on_taken: Callable[[], None],
    ) -> None:
        self.path = path
        self.location = location
        self.lock_path = path.with_name(path.name + ".lock")
        self.lock_info_path = path.with_name(path.name + ".lock.json")
        self._write_atomic = write_atomic
        self._on_taken = on_taken
        self._generation: int | None = None  # the lock generation this process holds

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        fd = self._open_lock_file()
        try:
            taken = partial(_try_flock, fd)
            wait_for_lock(self.location, taken, self._read_lock_info, timeout, on_wait)
            self._wait_out_vanished_holder(on_wait)
            generation = _next_generation(fd)
            info = LockInfo.for_this_process(operation, lease=lease, generation=generation)
            self._record_holder(info)
            self._on_taken()
        except BaseException:
            os.close(fd)  # closing also drops the OS lock if it was taken
            raise
        self._generation = generation
        beat = Heartbeat(partial(self._renew, fd, info), location=self.location, lease=lease)
        return LockHandle(info, lambda: self._release(fd), lambda: os.close(fd), beat)

    def lock_info(self) -> LockInfo | None:
        """The holder's record while a process holds the OS lock. Read-only when there
        is no record (the usual case for a plan); with one, a shared probe of the OS lock
        tells a live holder from one that died."""
        recorded = self._read_lock_info()
        if recorded is None:
            return None
        fd = self._open_lock_file()
        try:
            return None if _try_flock(fd, fcntl.LOCK_SH) else recorded
        finally:
            os.close(fd)

    def force_unlock(self, lock_id: str) -> LockInfo:
        if not self.lock_path.exists():
            check_unlock(self.location, lock_id, None, live=False)
        fd = self._open_lock_file()
        try:
            recorded = self._read_lock_info()
            live = not _try_flock(fd)
            recorded = check_unlock(self.location, lock_id, recorded, live=live)
            self.lock_info_path.unlink()
            return recorded
        finally:
            os.close(fd)

    def _open_lock_file(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as error:
            raise StateError(
                f"cannot open the lock file {self.lock_path}: {os_reason(error)}"
            ) from None

    def _read_lock_info(self) -> LockInfo | None:
        try:
            return LockInfo.model_validate_json(self.lock_info_path.read_bytes())
        except (OSError, ValueError):  # absent, or caught mid-replace: no info to show
            return None

    def _wait_out_vanished_holder(self, on_wait: WaitNotice | None) -> None:
        """A record left while the OS lock is free: its holder died without releasing;
        wait out its lease before doing anything."""
        previous = self._read_lock_info()
        if previous is None:
            return
        notice = None
        if on_wait is not None:
            lines = previous.describe()
            notice = partial(_tell_takeover, on_wait, self.location, lines)
        wait_out_lease(lease_remaining(previous), notice)

    def _record_holder(self, info: LockInfo) -> None:
        info.renewed = iso_utc(utc_now())
        self._write_atomic(self.lock_info_path, info.model_dump_json(indent=2) + "\n")

    def _renew(self, fd: int, info: LockInfo) -> None:
        """Prove INFO still holds the lock (its generation, its record), then renew."""
        current = _read_generation(fd)
        if current != info.generation:
            raise StateError(f"another process took the lock over (generation {current})")
        recorded = self._read_lock_info()
        if recorded is None or recorded.id != info.id:
            raise StateError(f"its record {self.lock_info_path} was removed or replaced")
        self._record_holder(info)

    def check_fence(self) -> None:
        """Refuse a write of this backend's lock generation once a newer one holds it."""
        if self._generation is None:
            return  # this backend never locked: a test's write, or a new state's creation
        try:
            fd = os.open(self.lock_path, os.O_RDONLY)
        except FileNotFoundError:
            return
        try:
            current = _read_generation(fd)
        finally:
            os.close(fd)
        if current > self._generation:
            raise fenced_error(self.location, self._generation, current)

    def _release(self, fd: int) -> None:
        try:
            with contextlib.suppress(FileNotFoundError):
                self.lock_info_path.unlink()
        finally:
            os.close(fd)  # drops the OS lock


def _try_flock(fd: int, mode: int = fcntl.LOCK_EX) -> bool:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _read_generation(fd: int) -> int:
    """The lock generation the lock file holds (0: none yet, or a file of an older planner)."""
    text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() else 0


def _next_generation(fd: int) -> int:
    """Count one more taking of the lock in the lock file (the holder's generation)."""
    generation = _read_generation(fd) + 1
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{generation}\n".encode("ascii"), 0)
    os.fsync(fd)
    return generation


def _tell_takeover(on_wait: WaitNotice, source: str, lines: list[str], remaining: float) -> None:
    on_wait(takeover_lines(source, remaining, lines))
