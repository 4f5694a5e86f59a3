"""Three "CI runners" (working directories) applying one config with one PostgreSQL state
against `planner serve`: one lock holder at a time, no lost write, kill -9 frees the lock."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.state.postgres import PostgresBackend
from tests.cli.apply.test_apply_loopback import API_KEY, READ_TIMEOUT, config_text
from tests.controlplane.conftest import ServeProcess, start_serve
from tests.postgres import unique_name

pytestmark = pytest.mark.slow

COUNT = 3
FAST_SERVE = ["--build-seconds", "0.3", "--deploy-seconds", "0.5"]


class Runners:
    """Working directories, each with its own copy of one config, sharing one state."""

    def __init__(self, root: Path, server: ServeProcess, state_url: str) -> None:
        self.root, self.server, self.state_url = root, server, state_url
        self.name = unique_name()
        self.config = config_text("t", COUNT) + f'[state]\nname = "{self.name}"\n'
        self.started: list[subprocess.Popen[str]] = []

    def workdir(self, index: int) -> Path:
        path = self.root / f"runner{index}"
        path.mkdir(exist_ok=True)
        (path / "team.toml").write_text(self.config, encoding="utf-8")
        return path

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
        return {
            **env,
            "PLANNER_BASE_URL": self.server.url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE": self.state_url,
            "NO_COLOR": "1",
            "PYTHONUNBUFFERED": "1",
        }

    def start(self, index: int, *argv: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "planner", *argv, "-c", "team.toml"],
            cwd=self.workdir(index),
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.started.append(process)
        return process

    def run(self, index: int, *argv: str) -> tuple[int, str, str]:
        process = self.start(index, *argv)
        out, err = process.communicate(timeout=READ_TIMEOUT * 2)
        return process.returncode, out, err

    def backend(self) -> PostgresBackend:
        return PostgresBackend(self.state_url, name=self.name)


@pytest.fixture
def runners(tmp_path: Path, postgres_url: str) -> Iterator[Runners]:
    server = start_serve(
        ["--db", str(tmp_path / "serve.db"), "--api-key", API_KEY, *FAST_SERVE],
        cwd=tmp_path,
    )
    team = Runners(tmp_path, server, postgres_url)
    try:
        yield team
    finally:
        for process in team.started:
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=10)
        server.stop()
        server.process.communicate(timeout=10)
        shutil.rmtree(tmp_path / "runner0", ignore_errors=True)


def test_six_applies_from_three_runners_share_one_state(runners: Runners) -> None:
    """Six concurrent applies: the waiting ones succeed, the impatient ones succeed or
    fail naming another apply as the holder; each run's writes are contiguous in the
    history (one holder at a time), no write is lost, and the result has converged."""
    runs = [
        (runners.start(i % 3, "apply", "--auto-approve", "--lock-timeout", timeout), timeout)
        for i, timeout in enumerate(["120", "0", "120", "120", "0", "120"])
    ]
    pids = {process.pid for process, _ in runs}
    for process, timeout in runs:
        out, err = process.communicate(timeout=READ_TIMEOUT * 2)
        if process.returncode != 0:
            assert timeout == "0", out + err
            assert "state is locked" in err, err
            holder = re.search(r"held by: \S+ \(pid (\d+) on", err)
            assert holder is not None, err
            assert int(holder.group(1)) in pids - {process.pid}
            assert "planner unlock " in err
        assert "moved while it was being written" not in err
    backend = runners.backend()
    try:
        current, history = backend.read(), backend.history()
    finally:
        backend.close()
    assert current is not None and current.pending == []
    assert [v.serial for v in history] == list(range(current.serial, 0, -1))
    writers = [v.written_by for v in reversed(history)]
    runs_of_writes = [w for i, w in enumerate(writers) if i == 0 or writers[i - 1] != w]
    assert len(runs_of_writes) == len(set(runs_of_writes))  # no interleaving
    code, out, err = runners.run(1, "plan", "--detailed-exitcode")
    assert code == 0, out + err
    assert sorted(current.deployments) == [f"t{i}" for i in range(COUNT)]


def test_kill_9_of_the_holder_frees_the_lock(runners: Runners) -> None:
    """An apply killed with SIGKILL while it holds the lock blocks nobody: the next apply
    from another runner takes the lock without `planner unlock` and converges."""
    first = runners.start(0, "apply", "--auto-approve", "--lock-lease", "1")
    assert first.stdout is not None
    for line in first.stdout:
        if "Applying" in line or "Creating" in line or "created" in line:
            break
    backend = runners.backend()
    try:
        held = backend.lock_info()
        assert held is not None and held.pid == first.pid
        first.kill()
        first.wait(timeout=10)
        code, out, err = runners.run(2, "apply", "--auto-approve", "--lock-timeout", "30")
        assert code == 0, out + err
        assert backend.lock_info() is None
    finally:
        backend.close()
    code, out, err = runners.run(1, "plan", "--detailed-exitcode")
    assert code == 0, out + err
