"""The file lock between real processes: contention names the holder, death releases it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import StateLockedError
from planner.state import LocalFileBackend

HOLDER = """
import sys
from planner.state import LocalFileBackend
handle = LocalFileBackend(sys.argv[1]).lock("apply", lease=float(sys.argv[2]))
print("locked", flush=True)
sys.stdin.readline()
handle.release()
print("released", flush=True)
"""

pytestmark = pytest.mark.slow


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """A child process holding the lock on a state file until told (or killed)."""
    path = tmp_path / "planner.state.json"
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), "0.5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "locked"
    try:
        yield child, path
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=10)
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                stream.close()


def test_contention_names_holder_then_waits_for_release(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    """Another process's lock fails at once naming its pid, and a timeout outlasts it."""
    child, path = holder
    backend = LocalFileBackend(path)
    with pytest.raises(StateLockedError) as caught:
        backend.lock("plan")
    assert f"pid {child.pid}" in "\n".join(caught.value.details)
    assert "operation: apply" in caught.value.details
    assert child.stdin is not None
    child.stdin.write("go\n")
    child.stdin.flush()
    with backend.lock("plan", timeout=30) as handle:
        assert backend.lock_info() == handle.info
    assert child.wait(timeout=10) == 0


def test_killed_holder_releases_lock(holder: tuple[subprocess.Popen[str], Path]) -> None:
    """A holder killed with SIGKILL leaves info of no live holder; the next holder waits
    out the dead one's lease, saying so, then takes the lock (one generation more)."""
    child, path = holder
    backend = LocalFileBackend(path)
    child.kill()
    child.wait(timeout=10)
    assert backend.file_lock.lock_info_path.exists()  # the dead process could not clean up
    assert backend.lock_info() is None
    notices: list[list[str]] = []
    with backend.lock("plan", on_wait=notices.append) as handle:
        assert handle.info.pid != child.pid
        assert handle.info.generation == 2
    assert not notices or "lease of a holder that stopped" in notices[0][0]


def test_symlink_and_target_exclude_each_other_across_processes(tmp_path: Path) -> None:
    """A process locking through a symlink blocks another locking the target, and back."""
    target = tmp_path / "real" / "planner.state.json"
    target.parent.mkdir()
    link = tmp_path / "planner.state.json"
    link.symlink_to(target)
    for held, contender in ((link, target), (target, link)):
        child = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(held), "15"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline().strip() == "locked"
            with pytest.raises(StateLockedError) as caught:
                LocalFileBackend(contender).lock("plan")
            assert f"pid {child.pid}" in "\n".join(caught.value.details)
            child.stdin.write("go\n")
            child.stdin.flush()
            assert child.wait(timeout=10) == 0
        finally:
            if child.poll() is None:
                child.kill()
            child.communicate(timeout=10)
    assert link.is_symlink()


KILLED_MID_WRITE = """
import os, sys, time
from planner.state import LocalFileBackend, StateDocument
backend = LocalFileBackend(sys.argv[1])
handle = backend.lock("apply", lease=0.5)  # as HOLDER's: the next lock waits it out, not 15 s
def stall(*args):
    print("stalled", flush=True)
    time.sleep(60)
os.replace = stall
backend.write(StateDocument.new("http://127.0.0.1:8123", None))
"""


def test_temp_file_of_a_writer_killed_mid_write_is_cleaned_up(tmp_path: Path) -> None:
    """A writer killed with SIGKILL between writing its temp file and renaming it leaves
    a `.tmp` beside the state; the next lock removes it and the state reads as absent."""
    path = tmp_path / "planner.state.json"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_WRITE, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "stalled"
    finally:
        child.kill()
        child.communicate(timeout=10)
    assert [p.name for p in tmp_path.glob(".planner.state.json.*.tmp")] != []
    backend = LocalFileBackend(path)
    with backend.lock("plan"):
        assert list(tmp_path.glob("*.tmp")) == []
        assert backend.read() is None
