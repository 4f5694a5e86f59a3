"""The state as a local JSON file: atomic writes, a backup, and an OS file lock.

A state path that is a symlink is resolved first: the lock and the writes act on the real
file, so a link and its target lock together and a write leaves the link a link.

Files next to the state `X`: `X.backup` (the previous version), `X.journal` (the
operation log of the current version: planner.state.journalfile), `X.lock` (the file the
OS lock is taken on; never deleted, so every process locks the same inode) and
`X.lock.json` (who holds the lock, for messages only: the OS lock is the truth, so info
left behind by a process that died blocks nobody).

A process killed during an atomic write leaves its temp file (`.X.<32 hex>.tmp`, or the
same for `X.backup` / `X.journal` / `X.lock.json`); whoever takes the lock next removes
the ones of this state (only those names, only regular files, only under the lock, when
no writer of this state can be running).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import uuid
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from planner.errors import StateError
from planner.files import non_regular_kind, os_reason, read_user_text
from planner.state.backend import next_version
from planner.state.document import (
    StateDocument,
    advance,
    iso_utc,
    parse_state,
    state_chunks,
)
from planner.state.elsewhere import other_state_paths, owned_by
from planner.state.filelock import FileLock
from planner.state.journalfile import FileLog
from planner.state.lease import (
    DEFAULT_LEASE_SECONDS,
)
from planner.state.locking import (
    LockHandle,
    LockInfo,
    WaitNotice,
)
from planner.state.oplog import Group, replay
from planner.state.plan_key import ensure_plan_key, plan_key_path, read_plan_key
from planner.state.versions import StateVersion, missing_version_error, version_of

FILE_MODE = 0o600
MAX_STATE_BYTES = 64 * 1024 * 1024
READ_ATTEMPTS = 5
_WRITE_BUFFER = 256 * 1024  # bytes gathered per write(2) of a file written in pieces


class LocalFileBackend:
    """A state file on the local disk (see the module docstring for the files it uses)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.typed_path = Path(path)
        self.path = real_path(self.typed_path)
        self.backup_path = _sibling(self.path, ".backup")
        self.log = FileLog(_sibling(self.path, ".journal"), self.path, write_atomic)
        self.file_lock = FileLock(
            self.path, str(self.typed_path), write_atomic, self._remove_leftover_temp_files
        )

    @property
    def location(self) -> str:
        return str(self.typed_path)

    @property
    def address(self) -> str:
        return str(self.path)

    def files(self) -> dict[Path, str]:
        """Every file this state keeps (real paths), named as a person knows it."""
        return {
            self.path: "the state file",
            self.backup_path: "the state file's backup",
            self.log.path: "the state's operation log",
            self.file_lock.lock_path: "the state's lock file",
            self.file_lock.lock_info_path: "the state's lock record",
            plan_key_path(self.path): "the state's plan key",
        }

    def read(self) -> StateDocument | None:
        """The stored version with its operation log replayed; read again when a new
        version replaced the file meanwhile (its log may be gone already)."""
        for _ in range(READ_ATTEMPTS):
            before = _identity(self.path)
            text = self._read_text()
            groups = self.log.groups()
            if _identity(self.path) == before:
                break
        return None if text is None else replay(self._parse(text), groups)

    def managed_elsewhere(self, config_stem: str) -> dict[str, str]:
        """Deployment id -> the state file beside this one (same config stem) recording it."""
        shown = self.typed_path.parent  # named as this state is, beside it
        others = other_state_paths(self.path, config_stem)
        return owned_by((str(shown / p.name), LocalFileBackend(p).read) for p in others)

    def append(self, group: Group) -> None:
        try:
            with _directory_locked(self.path.parent):  # the same lock as a write
                self.file_lock.check_fence()
                self.log.append(group, self._read_stored, self.location)
        except OSError as error:
            raise StateError(
                f"{self.log.path}: cannot append to the operation log: {os_reason(error)}",
                hint="the state holds what was recorded before this operation",
            ) from None

    def write(self, doc: StateDocument, *, force: bool = False) -> StateDocument:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _directory_locked(self.path.parent):  # compare-and-swap: one writer at once
                self.file_lock.check_fence()
                previous_text = self._read_text()
                current = self._read_stored(previous_text)
                written = next_version(current, doc, self.location, force=force)
                if previous_text is not None:
                    write_atomic(self.backup_path, previous_text)
                write_atomic(self.path, state_chunks(written))  # never whole in memory
                self.log.remove()  # folded into this version (or overwritten by it)
        except OSError as error:
            raise StateError(
                f"{self.path}: cannot write state file: {os_reason(error)}",
                hint="the previous state (if any) is unchanged",
            ) from None
        advance(doc, written)
        return written

    def history(self) -> list[StateVersion]:
        """The current version and the one in `.backup` (a file keeps no more)."""
        kept = self._kept()
        return [version_of(doc, created=_mtime(path), written_by=None) for path, doc in kept]

    def read_version(self, serial: int) -> StateDocument:
        kept = self._kept()
        for _, doc in kept:
            if doc.serial == serial:
                return doc
        raise missing_version_error(self.location, serial, [doc.serial for _, doc in kept])

    def plan_key(self, *, create: bool) -> bytes | None:
        return ensure_plan_key(self.path) if create else read_plan_key(self.path)

    def close(self) -> None:
        """Nothing to let go of: every call opens and closes its files."""

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        self._check_regular_file()  # before a lock file is made beside a FIFO or device
        return self.file_lock.lock(operation, timeout, on_wait, lease=lease)

    def lock_info(self) -> LockInfo | None:
        return self.file_lock.lock_info()

    def force_unlock(self, lock_id: str) -> LockInfo:
        return self.file_lock.force_unlock(lock_id)

    def _kept(self) -> list[tuple[Path, StateDocument]]:
        kept = []
        current = self._read_stored()
        if current is not None:
            kept.append((self.path, current))
            try:
                text = read_user_text(self.backup_path, "state backup", StateError, MAX_STATE_BYTES)
                kept.append((self.backup_path, parse_state(text, source=str(self.backup_path))))
            except (FileNotFoundError, StateError):  # no backup, or one that cannot be used
                pass
        return kept

    def _read_stored(self, text: str | None = None) -> StateDocument | None:
        """The stored version, without its operation log."""
        text = self._read_text() if text is None else text
        return None if text is None else self._parse(text)

    def _read_text(self) -> str | None:
        try:
            return read_user_text(self.path, "state file", StateError, MAX_STATE_BYTES)
        except FileNotFoundError:
            return None

    def _check_regular_file(self) -> None:
        try:
            mode = os.stat(self.path).st_mode
        except OSError:  # absent (a new state), or unreachable: the lock file says why
            return
        kind = non_regular_kind(mode)
        if kind is not None:
            raise StateError(
                f"{self.path}: cannot use it as the state file: it is {kind}, not a regular file",
                hint="point --state (or PLANNER_STATE_DIR) at a regular file or a new path",
            )

    def _parse(self, text: str) -> StateDocument:
        backup = str(self.backup_path) if self.backup_path.exists() else None
        return parse_state(text, source=self.location, backup=backup)

    def _remove_leftover_temp_files(self) -> None:
        """Temp files of writes that never finished (their writer was killed)."""
        pattern = re.compile(
            rf"\.{re.escape(self.path.name)}(\.backup|\.journal|\.lock\.json)?\.[0-9a-f]{{32}}\.tmp"
        )
        with contextlib.suppress(OSError), os.scandir(self.path.parent) as entries:
            for entry in entries:
                if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(entry.path)


def real_path(path: Path) -> Path:
    """PATH with every symlink resolved (absolute); a missing tail stays as spelled."""
    return Path(os.path.realpath(path))


def write_atomic(path: Path, text: str | Iterable[str], *, mode: int = FILE_MODE) -> None:
    """Replace PATH with TEXT (or the pieces of a text, written as they come) so readers
    see the old or the new file, never a mix.

    Temp file in the same directory (MODE, 0600 unless given), fsync, rename over, fsync
    the directory.
    """
    pieces = (text,) if isinstance(text, str) else text
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # exact, whatever the umask
        with os.fdopen(fd, "wb", _WRITE_BUFFER, closefd=False) as handle:
            for piece in pieces:
                handle.write(piece.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file PATH is now (a write renames a new one over it), None when absent."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_mtime_ns)


def _mtime(path: Path) -> str:
    try:
        return iso_utc(datetime.fromtimestamp(path.stat().st_mtime, UTC), timespec="seconds")
    except OSError:
        return "-"


@contextlib.contextmanager
def _directory_locked(directory: Path) -> Iterator[None]:
    """A short OS lock on DIRECTORY, apart from the state lock (which the writer itself
    may hold on another descriptor), so a read-compare-write is never interleaved."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)
