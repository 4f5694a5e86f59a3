"""`planner unlock LOCK_ID` through the CLI entry point."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.state import LocalFileBackend
from tests.cli.conftest import BASE_CONFIG, Scenario


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "planner.state.json"


def test_unlock_clears_abandoned_lock(state_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """unlock with the right id clears info a dead holder left, and says whose it was."""
    backend = LocalFileBackend(state_path)
    handle = backend.lock("apply")
    handle.abandon()
    assert main(["unlock", handle.info.id, "--state", str(state_path)]) == 0
    out = capsys.readouterr().out
    assert f"Cleared lock {handle.info.id}" in out
    assert "`apply`" in out
    assert not backend.file_lock.lock_info_path.exists()


def test_unlock_wrong_id(state_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """unlock with an id that is not the recorded lock's is refused, naming the right one
    with the `--state` it was given."""
    handle = LocalFileBackend(state_path).lock("apply")
    handle.abandon()
    assert main(["unlock", "not-it", "--state", str(state_path)]) == 1
    err = capsys.readouterr().err
    assert "does not match" in err
    assert f"planner unlock --state {state_path} {handle.info.id}" in err


def test_unlock_refuses_live_lock(state_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """unlock of a lock a live process holds is refused and the lock stays held."""
    backend = LocalFileBackend(state_path)
    with backend.lock("apply") as held:
        assert main(["unlock", held.info.id, "--state", str(state_path)]) == 1
        assert backend.lock_info() == held.info
    err = capsys.readouterr().err
    assert "held by a running process" in err
    assert "released when that process exits" in err


def test_unlock_when_not_locked(state_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """unlock of a state that is not locked says so and creates nothing."""
    assert main(["unlock", "some-id", "--state", str(state_path)]) == 1
    assert "is not locked" in capsys.readouterr().err
    assert not state_path.parent.joinpath("planner.state.json.lock").exists()


@pytest.mark.slow
def test_unlock_after_holder_killed(state_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After a holder process is killed, its lock id (from the info it left) can be cleared."""
    script = (
        "import sys\n"
        "from planner.state import LocalFileBackend\n"
        "h = LocalFileBackend(sys.argv[1]).lock('apply')\n"
        "print(h.info.id, flush=True)\n"
        "sys.stdin.readline()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(state_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    lock_id = child.stdout.readline().strip()
    child.kill()
    child.wait(timeout=10)
    child.stdout.close()
    child.stdin.close()
    info_path = Path(f"{state_path}.lock.json")
    assert json.loads(info_path.read_text())["pid"] == child.pid
    assert main(["unlock", lock_id, "--state", str(state_path)]) == 0
    assert f"pid {child.pid}" in capsys.readouterr().out
    assert not info_path.exists()


def test_the_lock_errors_unlock_command_repeats_the_options_given(scenario: Scenario) -> None:
    """`planner apply -c x.toml` while a dead run's lock stays: the hint's
    `planner unlock` repeats `-c x.toml`, and pasting it clears that lock."""
    scenario.config_path = scenario.root / "x.toml"
    scenario.write_config(BASE_CONFIG)
    backend = LocalFileBackend(scenario.state_path)
    handle = backend.lock("apply")
    try:
        result = scenario.cli("apply", "-c", "x.toml", "--auto-approve")
    finally:
        handle.abandon()
    assert result.code == 1
    command = f"planner unlock -c x.toml {handle.info.id}"
    assert f"`{command}`" in result.err
    assert scenario.cli(*shlex.split(command)[1:]).code == 0
    assert backend.lock_info() is None
