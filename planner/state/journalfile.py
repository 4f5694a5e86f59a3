"""The operation log of a state file: `X.journal` beside the state `X`, one JSON line per
commit group (planner.state.oplog), appended and fsynced.

Invariants:
- an append is one `write` of a whole line then an fsync, both checked: a short write
  (a file size limit, a full disk) is cut back and, like an fsync error, raised, so the
  caller sends nothing whose intent is not durable; a writer killed mid-append leaves at
  most a torn tail, which readers ignore with a warning (planner.state.oplog.read_log)
  and the next append cuts off before writing;
- the first append after anything else touched the files (another process, a new
  version, a crash) checks the group's base against the state file and starts the log
  afresh when it was left for an older version; later appends of the same writer only
  check that the state file and the log are as it left them (a stat each), so an append
  costs the same at 10 or 10,000 deployments;
- the log is removed after a new version is written (that version holds or replaces it);
  a log left by a writer killed in between is for an older base: ignored, then replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path

from planner.errors import StateError
from planner.files import read_user_bytes
from planner.state.document import StateDocument
from planner.state.oplog import Group, ParsedLog, check_base, read_log

FILE_MODE = 0o600
MAX_LOG_BYTES = 512 * 1024 * 1024

# (state file inode, mtime, size; log size) as a writer's own last append left them
Footprint = tuple[int, int, int, int]


class FileLog:
    """The log at PATH of the state file STATE_PATH (WRITE_ATOMIC: how to replace a file)."""

    def __init__(self, path: Path, state_path: Path, write_atomic: Callable[[Path, str], None]):
        self.path = path
        self.state_path = state_path
        self._write_atomic = write_atomic
        self._left: tuple[str, int, Footprint] | None = None  # (lineage, base, footprint)

    def groups(self) -> list[Group]:
        """Every complete group in the log (none when there is no log)."""
        return self._read().groups

    def append(
        self, group: Group, read_current: Callable[[], StateDocument | None], location: str
    ) -> None:
        """Append GROUP durably (the caller holds the directory lock); see the module.
        An OSError (a short write, an fsync error, a full disk) means it is not durable."""
        if self._left is None or self._left != (group.lineage, group.base, self._footprint()):
            check_base(read_current(), group, location)
            self._restart_unless_for(group)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            write_whole(fd, group.line().encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        self._left = (group.lineage, group.base, self._footprint())

    def remove(self) -> None:
        """Drop the log (a new version was just written) and forget the fast path."""
        self._left = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _read(self) -> ParsedLog:
        data = self._bytes()
        return ParsedLog([], 0, 0) if data is None else read_log(data, source=str(self.path))

    def _bytes(self) -> bytes | None:
        try:
            return read_user_bytes(self.path, "operation log", StateError, MAX_LOG_BYTES)
        except FileNotFoundError:
            return None

    def _restart_unless_for(self, group: Group) -> None:
        """Keep the complete lines of a log for GROUP's base (a torn tail cut off);
        start a new log when it was left for an older version."""
        data = self._bytes()
        if data is None:
            return
        parsed = read_log(data, source=str(self.path))
        kept = data[: parsed.kept]
        if any((g.lineage, g.base) != (group.lineage, group.base) for g in parsed.groups):
            kept = b""  # left for an older version: that version's write folded it in
        if kept != data:
            self._write_atomic(self.path, kept.decode("utf-8"))

    def _footprint(self) -> Footprint:
        state = os.stat(self.state_path)
        try:
            log_size = os.stat(self.path).st_size
        except FileNotFoundError:
            log_size = -1
        return (state.st_ino, state.st_mtime_ns, state.st_size, log_size)


def write_whole(fd: int, data: bytes) -> None:
    """Write DATA at the end of FD in one `write`, or cut the file back to where it was
    and raise: a short write (a file size limit, a full disk) leaves no torn line."""
    start = os.fstat(fd).st_size
    try:
        written = os.write(fd, data)
    except OSError:
        _cut_back(fd, start)
        raise
    if written != len(data):
        _cut_back(fd, start)
        raise OSError(errno.EIO, f"short write ({written} of {len(data)} bytes written)")


def _cut_back(fd: int, size: int) -> None:
    with contextlib.suppress(OSError):  # if this fails too, readers ignore the torn tail
        os.ftruncate(fd, size)
