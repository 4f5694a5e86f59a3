"""The local file backend: the contract, plus atomicity, backups and file modes."""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.errors import StateError, StateLockedError
from planner.state import LocalFileBackend, StateDocument
from planner.state.oplog import group_of
from tests.state.contract import (
    ENDPOINT,
    TENANT,
    BackendContract,
    Harness,
    edit_json_text,
    sample_recorded,
)


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "dir" / "planner.state.json"


@pytest.fixture
def harness(state_path: Path) -> Harness:
    def edit_stored(edit: Any) -> None:
        state_path.write_text(edit_json_text(state_path.read_text(), edit))

    return Harness(
        backend=LocalFileBackend(state_path),
        peer=lambda: LocalFileBackend(state_path),
        edit_stored=edit_stored,
        stored_text=state_path.read_text,
        other_state=lambda: LocalFileBackend(state_path.with_name("other.state.json")),
        full_history=False,
    )


class TestLocalFileBackend(BackendContract):
    """The contract, for LocalFileBackend."""


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_creates_parent_dir_and_mode_0600(state_path: Path) -> None:
    """The first write creates the directory and a file only its owner can read."""
    LocalFileBackend(state_path).write(StateDocument.new(ENDPOINT, TENANT))
    assert _mode(state_path) == 0o600


def test_mode_0600_even_with_permissive_umask_and_old_file(state_path: Path) -> None:
    """A state that was world-readable becomes 0600 on the next write, whatever the umask."""
    backend = LocalFileBackend(state_path)
    first = backend.write(StateDocument.new(ENDPOINT, TENANT))
    state_path.chmod(0o644)
    old_umask = os.umask(0)
    try:
        backend.write(first)
    finally:
        os.umask(old_umask)
    assert _mode(state_path) == 0o600
    assert _mode(backend.backup_path) == 0o600


def test_backup_holds_previous_version(state_path: Path) -> None:
    """Each write keeps the version it replaces as `<path>.backup`."""
    backend = LocalFileBackend(state_path)
    doc = StateDocument.new(ENDPOINT, TENANT)
    first = backend.write(doc)
    assert not backend.backup_path.exists()
    before = state_path.read_text()
    backend.write(doc)
    assert backend.backup_path.read_text() == before
    assert LocalFileBackend(backend.backup_path).read() == first


def test_corrupt_state_hint_names_backup(state_path: Path) -> None:
    """A checksum mismatch names the file and the backup to restore from."""
    backend = LocalFileBackend(state_path)
    backend.write(backend.write(StateDocument.new(ENDPOINT, TENANT)))
    state_path.write_text(state_path.read_text().replace('"tenant_id": "0', '"tenant_id": "1'))
    with pytest.raises(StateError) as caught:
        backend.read()
    assert str(state_path) in caught.value.message
    assert "checksum mismatch" in caught.value.message
    assert str(backend.backup_path) in (caught.value.hint or "")


def test_invalid_json_names_file(state_path: Path) -> None:
    """A state that is not JSON is an error naming the file, not a traceback."""
    state_path.parent.mkdir(parents=True)
    state_path.write_text('{"format_version": 1,')
    with pytest.raises(StateError, match="not valid JSON") as caught:
        LocalFileBackend(state_path).read()
    assert str(state_path) in caught.value.message


@pytest.mark.parametrize("cut", ["empty", "truncated", "not an object"])
def test_an_empty_or_truncated_state_points_to_the_backup(state_path: Path, cut: str) -> None:
    """A state file cut short (a full disk, a copy interrupted) or emptied names the file
    and, like a checksum mismatch, the backup to restore from."""
    backend = LocalFileBackend(state_path)
    backend.write(backend.write(StateDocument.new(ENDPOINT, TENANT)))
    text = state_path.read_text()
    state_path.write_text(
        {"empty": "", "truncated": text[: len(text) // 2], "not an object": "[]"}[cut]
    )
    with pytest.raises(StateError) as caught:
        backend.read()
    assert str(state_path) in caught.value.message
    if cut == "empty":
        assert caught.value.message == f"state file {state_path} is empty"
    hint = caught.value.hint or ""
    assert f"restore the previous version from {backend.backup_path}" in hint
    assert "never edit a state file by hand" in hint


def test_an_empty_state_without_a_backup_says_to_restore_from_a_copy(state_path: Path) -> None:
    """Without a backup the hint is a copy the user trusts."""
    state_path.parent.mkdir(parents=True)
    state_path.write_text("")
    with pytest.raises(StateError) as caught:
        LocalFileBackend(state_path).read()
    assert "restore the file from a copy you trust" in (caught.value.hint or "")


def test_no_temp_files_left(state_path: Path) -> None:
    """After writes only the state, its backup and nothing else are in the directory."""
    backend = LocalFileBackend(state_path)
    backend.write(backend.write(StateDocument.new(ENDPOINT, TENANT)))
    assert sorted(p.name for p in state_path.parent.iterdir()) == [
        "planner.state.json",
        "planner.state.json.backup",
    ]


def test_failed_write_keeps_old_file(state_path: Path) -> None:
    """A write refused as stale leaves the stored state untouched."""
    backend = LocalFileBackend(state_path)
    stale = backend.write(StateDocument.new(ENDPOINT, TENANT)).model_copy(deep=True)
    newer = backend.write(stale.model_copy(deep=True))
    text = state_path.read_text()
    with pytest.raises(StateError):
        backend.write(stale)
    assert state_path.read_text() == text
    assert backend.read() == newer


def test_lock_files_mode_0600(state_path: Path) -> None:
    """The lock file and its info are private to the owner too."""
    backend = LocalFileBackend(state_path)
    with backend.lock("apply"):
        assert _mode(backend.file_lock.lock_path) == 0o600
        assert _mode(backend.file_lock.lock_info_path) == 0o600
    assert not backend.file_lock.lock_info_path.exists()


def test_concurrent_reader_never_sees_partial_file(state_path: Path) -> None:
    """A reader polling while another thread writes always gets a whole, valid state."""
    backend = LocalFileBackend(state_path)
    doc = StateDocument.new(ENDPOINT, TENANT)
    for index in range(200):  # a file of some size, so a torn write would show
        doc.record(sample_recorded(f"agent-{index}"))
    doc = backend.write(doc)
    stop = threading.Event()
    serials: list[int] = []
    errors: list[BaseException] = []

    def read_until_stopped() -> None:
        reader = LocalFileBackend(state_path)
        while not stop.is_set():
            try:
                seen = reader.read()
            except BaseException as error:
                errors.append(error)
                return
            serials.append(seen.serial if seen else -1)

    thread = threading.Thread(target=read_until_stopped)
    thread.start()
    try:
        for _ in range(30):
            doc = backend.write(doc)
    finally:
        stop.set()
        thread.join()
    assert errors == []
    assert serials and serials == sorted(serials)
    assert serials[0] >= 1


def test_unwritable_directory_is_a_state_error(tmp_path: Path) -> None:
    """A state path under a regular file fails as a StateError naming the file, not OSError."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    backend = LocalFileBackend(blocker / "planner.state.json")
    with pytest.raises(
        StateError, match=r"not-a-dir/planner\.state\.json: cannot (read|write) state file"
    ):
        backend.write(StateDocument.new(ENDPOINT, TENANT))
    with pytest.raises(StateError, match="cannot open the lock file"):
        backend.lock("apply")


def test_write_records_current_tool_version(state_path: Path) -> None:
    """Whatever version a document came with, it is written with this planner's version."""
    from planner import __version__

    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.tool_version = "0.0.0-old"
    written = LocalFileBackend(state_path).write(doc)
    assert written.tool_version == __version__
    assert LocalFileBackend(state_path).read() == written


def test_write_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    """A state path that is a symlink stays a link; its target gets the new content."""
    target = tmp_path / "real" / "planner.state.json"
    target.parent.mkdir()
    link = tmp_path / "planner.state.json"
    link.symlink_to(target)
    backend = LocalFileBackend(link)
    written = backend.write(backend.write(StateDocument.new(ENDPOINT, TENANT)))
    assert link.is_symlink()
    assert LocalFileBackend(target).read() == written
    assert (target.parent / "planner.state.json.backup").exists()


def test_symlink_and_target_share_one_lock(tmp_path: Path) -> None:
    """Locking through a symlink blocks a lock on its target (and the other way round)."""
    target = tmp_path / "planner.state.json"
    link = tmp_path / "link.state.json"
    link.symlink_to(target)
    with LocalFileBackend(link).lock("apply"), pytest.raises(StateLockedError):
        LocalFileBackend(target).lock("plan")
    with LocalFileBackend(target).lock("apply"), pytest.raises(StateLockedError):
        LocalFileBackend(link).lock("plan")


@pytest.fixture
def immutable() -> Iterator[Callable[[Path], None]]:
    """`chattr +i` on paths (undone after the test): unwritable even for root."""
    marked: list[Path] = []

    def mark(path: Path) -> None:
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"chattr +i is not available here: {done.stderr.decode().strip()}")
        marked.append(path)

    yield mark
    for path in marked:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def test_state_path_that_is_a_directory_is_named(tmp_path: Path) -> None:
    """A directory where the state file should be is a StateError naming the path."""
    (tmp_path / "planner.state.json").mkdir()
    backend = LocalFileBackend(tmp_path / "planner.state.json")
    with pytest.raises(
        StateError, match=r"planner\.state\.json: cannot .*: it is a directory, not a regular file"
    ):
        backend.read()
    with pytest.raises(
        StateError, match=r"planner\.state\.json: cannot .*: it is a directory, not a regular file"
    ):
        backend.write(StateDocument.new(ENDPOINT, TENANT))


@pytest.mark.timeout(10)
def test_fifo_state_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO as the state file is refused at once (no writer: a plain open would hang)."""
    fifo = tmp_path / "planner.state.json"
    os.mkfifo(fifo)
    with pytest.raises(StateError, match=r"it is a FIFO \(named pipe\), not a regular file"):
        LocalFileBackend(fifo).read()


@pytest.mark.timeout(10)
def test_device_state_is_refused_without_reading_it() -> None:
    """/dev/zero as the state file is refused, not read forever."""
    with pytest.raises(
        StateError, match=r"/dev/zero: cannot .*: it is a character device, not a regular file"
    ):
        LocalFileBackend("/dev/zero").read()


def test_huge_state_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A state file over the size cap (sparse here, so the test is cheap) is refused."""
    from planner.state.localfile import MAX_STATE_BYTES

    path = tmp_path / "planner.state.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_STATE_BYTES + 1)
    with pytest.raises(
        StateError, match=r"planner\.state\.json: cannot read state file: larger than 64 MB"
    ):
        LocalFileBackend(path).read()


def test_permission_error_on_write_is_a_clear_state_error(
    state_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PermissionError while writing is a StateError naming the file; nothing changes."""
    backend = LocalFileBackend(state_path)
    written = backend.write(StateDocument.new(ENDPOINT, TENANT))
    before = sorted(p.name for p in state_path.parent.iterdir())

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(StateError, match=f"{state_path}: cannot write state file: Permission"):
        backend.write(written.model_copy(deep=True))
    monkeypatch.undo()
    assert backend.read() == written
    assert sorted(p.name for p in state_path.parent.iterdir()) == before


def test_permission_error_on_read_is_a_clear_state_error(
    state_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PermissionError while reading is a StateError naming the file."""
    backend = LocalFileBackend(state_path)
    backend.write(StateDocument.new(ENDPOINT, TENANT))

    def refuse(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(StateError, match=f"{state_path}: cannot read state file: Permission"):
        backend.read()


@pytest.mark.slow
def test_immutable_state_directory_is_a_clear_state_error(
    state_path: Path, immutable: Callable[[Path], None]
) -> None:
    """A state directory nobody may write (chattr +i, which stops root too) fails as a
    StateError naming the path, for the lock and for the write, leaving nothing behind."""
    state_path.parent.mkdir(parents=True)
    immutable(state_path.parent)
    backend = LocalFileBackend(state_path)
    lock_path = backend.file_lock.lock_path
    with pytest.raises(StateError, match=f"cannot open the lock file {lock_path}"):
        backend.lock("apply")
    with pytest.raises(StateError, match=f"{state_path}: cannot write state file"):
        backend.write(StateDocument.new(ENDPOINT, TENANT))
    assert list(state_path.parent.iterdir()) == []


@pytest.mark.slow
def test_immutable_state_file_is_a_clear_state_error(
    state_path: Path, immutable: Callable[[Path], None]
) -> None:
    """A state file that cannot be replaced fails as a StateError; the old file stays."""
    backend = LocalFileBackend(state_path)
    written = backend.write(StateDocument.new(ENDPOINT, TENANT))
    immutable(state_path)
    with pytest.raises(StateError, match=f"{state_path}: cannot write state file"):
        backend.write(written.model_copy(deep=True))
    assert backend.read() == written
    assert not [p for p in state_path.parent.iterdir() if p.name.endswith(".tmp")]


def test_lock_removes_temp_files_a_killed_writer_left(state_path: Path) -> None:
    """Taking the lock removes this state's own leftover temp files (state, backup, lock
    info, operation log) and nothing else: not another state's, not a name the planner
    does not make."""
    state_path.parent.mkdir(parents=True)
    hexes = ["0" * 32, "a" * 32, "b" * 32]
    ours = [
        state_path.parent / f".planner.state.json.{hexes[0]}.tmp",
        state_path.parent / f".planner.state.json.backup.{hexes[1]}.tmp",
        state_path.parent / f".planner.state.json.lock.json.{hexes[2]}.tmp",
        state_path.parent / f".planner.state.json.journal.{hexes[2]}.tmp",
    ]
    others = [
        state_path.parent / f".other.state.json.{hexes[0]}.tmp",
        state_path.parent / ".planner.state.json.notes.tmp",
        state_path.parent / f"planner.state.json.{hexes[0]}.tmp",
    ]
    for path in ours + others:
        path.write_text("{")
    with LocalFileBackend(state_path).lock("plan"):
        assert [p for p in ours if p.exists()] == []
        assert [p for p in others if p.exists()] == others


def test_lock_refuses_a_state_path_that_is_not_a_file_before_creating_anything(
    tmp_path: Path,
) -> None:
    """Locking a FIFO or directory state path fails naming it, and creates no lock file
    beside it (so `--state /dev/zero` leaves nothing in /dev)."""
    fifo, directory = tmp_path / "fifo.state.json", tmp_path / "dir.state.json"
    os.mkfifo(fifo)
    directory.mkdir()
    for path in (fifo, directory):
        backend = LocalFileBackend(path)
        with pytest.raises(StateError, match=f"{path}: cannot .*: it is .*, not a regular file"):
            backend.lock("plan")
        assert not backend.file_lock.lock_path.exists()


@pytest.mark.parametrize("text", ["[" * 100_000, '{"serial": ' + "1" * 5000 + "}"])
def test_a_hostile_state_file_is_a_state_error(tmp_path: Path, text: str) -> None:
    """100k nested brackets or a 5000-digit number in the state: a StateError naming it."""
    path = tmp_path / "planner.state.json"
    path.write_text(text)
    with pytest.raises(StateError, match=r"planner\.state\.json: (nested deeper|a number has)"):
        LocalFileBackend(path).read()


def _logged(state_path: Path, *names: str) -> tuple[LocalFileBackend, StateDocument]:
    """A state file at version 1 and one journal line per name recorded after it."""
    backend = LocalFileBackend(state_path)
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    backend.write(doc)
    doc.track_changes()
    for name in names:
        doc.record(sample_recorded(name))
        backend.append(group_of(doc, doc.take_changes()))
    return backend, doc


def test_a_torn_last_journal_line_is_ignored_then_cut_off(state_path: Path) -> None:
    """A writer killed mid-append leaves half a line: readers ignore it, and the next
    append (of a new process) cuts it off before writing its own."""
    _, doc = _logged(state_path, "a-agent")
    journal = state_path.with_name(state_path.name + ".journal")
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"lineage":"' + doc.lineage + '","base":1,"deltas":[{"rec')
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and set(stored.deployments) == {"a-agent"}
    doc.record(sample_recorded("b-agent"))
    LocalFileBackend(state_path).append(group_of(doc, doc.take_changes()))
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and set(stored.deployments) == {"a-agent", "b-agent"}
    assert journal.read_text(encoding="utf-8").count("\n") == 2


def test_a_damaged_journal_line_before_the_last_is_a_state_error(state_path: Path) -> None:
    """Only the last line can be torn by a crash: damage before it is named, not skipped."""
    _logged(state_path, "a-agent")
    journal = state_path.with_name(state_path.name + ".journal")
    journal.write_text("not json\n" + journal.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(StateError, match=r"operation log .*journal is damaged \(line 1\)"):
        LocalFileBackend(state_path).read()


def test_a_journal_left_for_an_older_version_is_ignored_and_replaced(state_path: Path) -> None:
    """Killed after the compacting write but before the journal was removed: the journal
    is for the old base, so it is not replayed, and the next append starts a new one."""
    backend, _ = _logged(state_path, "a-agent")
    journal = state_path.with_name(state_path.name + ".journal")
    left = journal.read_text(encoding="utf-8")
    replayed = backend.read()
    assert replayed is not None
    backend.write(replayed)
    assert not journal.exists()
    journal.write_text(left, encoding="utf-8")
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and stored.serial == 2 and stored.replayed == 0
    replayed.track_changes()
    replayed.forget("a-agent")
    LocalFileBackend(state_path).append(group_of(replayed, replayed.take_changes()))
    assert '"base":1' not in journal.read_text(encoding="utf-8")
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and stored.deployments == {}
