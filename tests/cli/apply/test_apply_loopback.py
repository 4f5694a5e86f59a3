"""`planner apply` as a real process against `planner serve` on loopback: faults, kill -9,
Ctrl-C, two applies at once, and the confirmation prompt on a terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment
from planner.state import LocalFileBackend
from tests.controlplane.conftest import ServeProcess, start_serve
from tests.event_lines import event_lines

pytestmark = pytest.mark.slow

API_KEY = "loopback-test-key"
READ_TIMEOUT = 60.0


def config_text(prefix: str, count: int, image: str = "registry.example.com/app:1") -> str:
    return "".join(
        f'[deployments.{prefix}{i}]\nsource = "internal_docker"\n'
        f'[deployments.{prefix}{i}.source_revision_config]\nimage_uri = "{image}"\n\n'
        for i in range(count)
    )


@dataclass
class Apply:
    """A `planner ...` subprocess whose stdout lines are read as they come."""

    process: subprocess.Popen[str]
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)

    def wait_for(self, text: str, timeout: float = READ_TIMEOUT) -> str:
        """Block until a stdout line containing TEXT; fail if the process ends first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"ended before {text!r}:\n" + "\n".join(self.seen))
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no {text!r} in time:\n" + "\n".join(self.seen))

    def finish(self, timeout: float = READ_TIMEOUT) -> tuple[int, str, str]:
        """Wait for the end; every stdout line in order (only the pump reads stdout)."""
        stderr = self.process.stderr
        assert stderr is not None
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.append(stderr.read()), daemon=True)
        reader.start()
        self.process.wait(timeout=timeout)
        reader.join(timeout=timeout)
        rest = []
        while (line := self.lines.get(timeout=timeout)) is not None:
            rest.append(line)
        return self.process.returncode, "\n".join([*self.seen, *rest]), "".join(err)


@dataclass
class Workdir:
    root: Path
    server: ServeProcess
    started: list[subprocess.Popen[str]] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
        return {
            **env,
            "PLANNER_BASE_URL": self.server.url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(self.root / "state"),
            "PYTHONUNBUFFERED": "1",
            "NO_COLOR": "1",
        }

    def write(self, name: str, text: str) -> str:
        (self.root / name).write_text(text, encoding="utf-8")
        return name

    def start(self, *argv: str) -> Apply:
        process = subprocess.Popen(
            [sys.executable, "-m", "planner", *argv],
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.started.append(process)
        run = Apply(process)
        threading.Thread(target=_pump, args=(process, run.lines), daemon=True).start()
        return run

    def run(self, *argv: str) -> tuple[int, str, str]:
        result = subprocess.run(
            [sys.executable, "-m", "planner", *argv],
            cwd=self.root,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=READ_TIMEOUT * 2,
        )
        return result.returncode, result.stdout, result.stderr

    def live(self, prefix: str) -> list[Deployment]:
        """Every deployment on the server whose name starts with PREFIX (being deleted too)."""

        async def listing() -> list[Deployment]:
            async with ControlPlaneClient(self.server.url, API_KEY) as client:
                return [d async for d in client.iter_deployments() if d.name.startswith(prefix)]

        return asyncio.run(listing())

    def assert_converged(self, config: str, prefix: str, count: int) -> None:
        """The server has exactly the config's deployments, one each, all recorded by id,
        nothing pending, and the next plan is empty."""
        live = self.live(prefix)
        assert sorted(d.name for d in live) == sorted(f"{prefix}{i}" for i in range(count))
        stem = config.removesuffix(".toml")
        state = LocalFileBackend(self.root / "state" / f"{stem}.state.json").read()
        assert state is not None and state.pending == []
        assert {n: r.id for n, r in state.deployments.items()} == {d.name: d.id for d in live}
        code, out, err = self.run("plan", "-c", config, "--detailed-exitcode")
        assert code == 0, out + err


def _pump(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert process.stdout is not None
    for line in iter(process.stdout.readline, ""):
        lines.put(line.rstrip("\n"))
    lines.put(None)


StartWorkdir = Callable[..., Workdir]  # `serve(*planner_serve_args)`


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[StartWorkdir]:
    started: list[Workdir] = []

    def start(*args: str) -> Workdir:
        server = start_serve(
            ["--db", str(tmp_path / "serve.db"), "--api-key", API_KEY, *args], cwd=tmp_path
        )
        started.append(Workdir(tmp_path, server))
        return started[-1]

    yield start
    for work in started:
        for process in work.started:  # an apply a failed test left running
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=10)
        work.server.stop()
        work.server.process.communicate(timeout=10)


def test_converges_through_injected_errors_and_a_rate_limit(serve: StartWorkdir) -> None:
    """With 20% of requests answered 503 and 20 requests/s allowed, apply still creates
    every deployment exactly once and records each of them."""
    work = serve(
        "--error-rate", "0.2", "--rate-limit", "20", "--build-seconds", "0.2",
        "--deploy-seconds", "0.3", "--delete-seconds", "0.2",
    )  # fmt: skip
    config = work.write("faults.toml", config_text("f", 8))
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    assert "8 created" in out
    work.assert_converged(config, "f", 8)


@pytest.mark.parametrize("delay", [0.0, 0.2, 0.6])
def test_kill_9_at_any_moment_then_apply_converges(serve: StartWorkdir, delay: float) -> None:
    """A `kill -9` of apply DELAY seconds into its work, then another apply, leaves the
    server with exactly the config's deployments, each recorded once."""
    work = serve("--latency-ms", "30", "--build-seconds", "0.2", "--deploy-seconds", "0.4")
    config = work.write("crash.toml", config_text("k", 10))
    # a short lease: the next apply waits out the killed one's lease before it starts
    victim = work.start(
        "apply", "-c", config, "--auto-approve", "--parallelism", "3", "--lock-lease", "1"
    )
    victim.wait_for("Applying")
    time.sleep(delay)
    victim.process.send_signal(signal.SIGKILL)
    victim.finish()
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.assert_converged(config, "k", 10)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_records_and_exits_130(serve: StartWorkdir, presses: int) -> None:
    """SIGINT during an apply: in-flight work finishes and is recorded (a second SIGINT
    cuts it short), exit 130, the state is consistent with the server, the lock is free
    and the next apply converges."""
    work = serve("--latency-ms", "30", "--build-seconds", "0.5", "--deploy-seconds", "1")
    config = work.write("intr.toml", config_text("c", 6))
    apply = work.start("apply", "-c", config, "--auto-approve", "--parallelism", "2")
    apply.wait_for("creating")
    for _ in range(presses):
        apply.process.send_signal(signal.SIGINT)
        time.sleep(0.01)
    code, out, err = apply.finish()
    assert code == 130, out + err
    said = ("Apply interrupted" in out, "Interrupted." in err)
    # a second press usually lands while requests are in flight (then: cancelled at once)
    assert said[0] if presses == 1 else any(said)
    state = LocalFileBackend(work.root / "state" / "intr.state.json").read()
    assert state is not None
    live = {d.name: d.id for d in work.live("c")}
    assert {n: r.id for n, r in state.deployments.items()}.items() <= live.items()
    assert set(live) <= set(state.deployments) | {i.name for i in state.pending}
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.assert_converged(config, "c", 6)


def test_a_second_apply_fails_on_the_lock_or_waits_for_it(serve: StartWorkdir) -> None:
    """While one apply runs, another fails at once naming the holder; with
    --lock-timeout it waits for the first to finish and then has nothing to do."""
    work = serve(
        "--build-seconds", "0.5", "--deploy-seconds", "6"
    )  # still applying when the second starts, under load too
    config = work.write("lock.toml", config_text("l", 2))
    first = work.start("apply", "-c", config, "--auto-approve")
    first.wait_for("Applying")
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 1
    assert "state is locked" in err and "operation: apply" in err
    assert f"pid {first.process.pid}" in err
    code, out, err = work.run("apply", "-c", config, "--auto-approve", "--lock-timeout", "60")
    assert code == 0, out + err
    assert first.finish()[0] == 0
    assert "0 created" in out
    work.assert_converged(config, "l", 2)


def run_on_terminal(work: Workdir, answer: str, *argv: str) -> tuple[int, str]:
    """Run planner on a pseudo-terminal, answer the prompt, return (code, everything shown)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "planner", *argv],
        cwd=work.root,
        env={**work.env(), "COLUMNS": "120"},
        stdin=slave,
        stdout=slave,
        stderr=slave,
    )
    os.close(slave)
    shown = b""
    answered = False
    deadline = time.monotonic() + READ_TIMEOUT
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
        if not answered and b"Enter a value:" in shown:
            os.write(master, answer.encode() + b"\n")
            answered = True
    os.close(master)
    return process.wait(timeout=READ_TIMEOUT), shown.decode(errors="replace")


def test_on_a_terminal_only_yes_applies(serve: StartWorkdir) -> None:
    """On a terminal apply asks; `no` cancels with exit 1 and creates nothing, `yes`
    applies (with the live display) and exits 0."""
    work = serve("--build-seconds", "0.1", "--deploy-seconds", "0.2")
    config = work.write("tty.toml", config_text("t", 2))
    code, shown = run_on_terminal(work, "no", "apply", "-c", config)
    assert code == 1
    assert "Only 'yes' will be accepted" in shown and "Apply cancelled." in shown
    assert work.live("t") == []
    code, shown = run_on_terminal(work, "yes", "apply", "-c", config)
    assert code == 0, shown
    assert "Apply complete: 2 created" in shown
    work.assert_converged(config, "t", 2)


def test_a_server_restart_while_waiting_does_not_fail_the_deployments(serve: StartWorkdir) -> None:
    """The control plane goes away for ~3 s while apply waits on revisions, then comes
    back on the same port and database: every deployment is reported deployed (the
    waits poll through the outage), exit 0, and the next plan is empty."""
    work = serve("--deploy-seconds", "4")
    config = work.write("outage.toml", config_text("o", 5))
    victim = work.start("apply", "-c", config, "--auto-approve")
    victim.wait_for("DEPLOYING")
    port = work.server.url.rsplit(":", 1)[1]
    assert work.server.stop() == 0
    work.server.process.communicate(timeout=10)
    time.sleep(3.0)
    work.server = start_serve(
        ["--db", str(work.root / "serve.db"), "--api-key", API_KEY, "--port", port],
        cwd=work.root,
    )
    code, out, err = victim.finish()
    assert code == 0, out + err
    assert "5 created" in out and "0 failed" in out
    work.assert_converged(config, "o", 5)


def test_kill_9_mid_update_is_never_drift_and_converges(serve: StartWorkdir) -> None:
    """A `kill -9` of an apply while its 6 PATCHes are in flight: the next plan never
    reports the planner's own work as changed outside the planner (the exact moment
    between the server's answer and the record is pinned in tests/cli/apply/test_apply_killed.py),
    and the next apply converges with an empty journal."""
    work = serve("--latency-ms", "200", "--build-seconds", "0.2", "--deploy-seconds", "0.4")
    config = work.write("crash.toml", config_text("u", 6))
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.write(config, config_text("u", 6, image="registry.example.com/app:2"))
    victim = work.start(
        "apply", "-c", config, "--auto-approve", "--parallelism", "6", "--lock-lease", "1"
    )
    victim.wait_for("updating")
    victim.process.send_signal(signal.SIGKILL)
    victim.finish()
    code, out, err = work.run("plan", "-c", config)
    assert code == 0, out + err
    assert "outside the planner" not in out, out
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.assert_converged(config, "u", 6)


def assert_consistent_and_unlocked(work: Workdir, config: str, prefix: str) -> None:
    """The lock is free, every recorded id is live, every live one is recorded or journalled."""
    backend = LocalFileBackend(work.root / "state" / config.replace(".toml", ".state.json"))
    with backend.lock("check"):  # fails at once if the stopped apply still held it
        state = backend.read()
    assert state is not None
    live = {d.name: d.id for d in work.live(prefix)}
    assert {n: r.id for n, r in state.deployments.items()}.items() <= live.items()
    assert set(live) <= set(state.deployments) | {i.name for i in state.pending}


@pytest.mark.parametrize("signals", [[signal.SIGTERM], [signal.SIGTERM, signal.SIGINT]])
def test_sigterm_stops_like_ctrl_c_and_exits_143(
    serve: StartWorkdir, signals: list[signal.Signals]
) -> None:
    """SIGTERM during an apply (a cancelled CI job): in-flight work finishes and is
    recorded, the summary is printed, exit 143; a second signal cuts it short, still
    143. Either way the lock is released, the state is consistent with the server and
    the next apply converges."""
    work = serve("--latency-ms", "30", "--build-seconds", "0.5", "--deploy-seconds", "1")
    config = work.write("term.toml", config_text("s", 6))
    apply = work.start("apply", "-c", config, "--auto-approve", "--parallelism", "2")
    apply.wait_for("creating")
    for signum in signals:
        apply.process.send_signal(signum)
        time.sleep(0.01)
    code, out, err = apply.finish()
    assert code == 143, out + err
    if len(signals) == 1:
        assert "Terminated (SIGTERM): finishing the requests in flight" in out
        assert "Apply interrupted:" in out
    assert_consistent_and_unlocked(work, config, "s")
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.assert_converged(config, "s", 6)


def test_sigterm_with_format_json_ends_the_stream_with_the_summary(serve: StartWorkdir) -> None:
    """With --format json a SIGTERM adds an `interrupt` event and the last line is the
    summary with outcome interrupted and exit code 143; every line is a valid event."""
    work = serve("--latency-ms", "30", "--build-seconds", "0.5", "--deploy-seconds", "1")
    config = work.write("jterm.toml", config_text("j", 6))
    argv = ("apply", "-c", config, "--auto-approve", "--parallelism", "2", "--format", "json")
    apply = work.start(*argv)
    apply.wait_for('"creating"')
    apply.process.send_signal(signal.SIGTERM)
    code, out, err = apply.finish()
    assert code == 143, out + err
    events = event_lines(out)
    assert [e["signal"] for e in events if e["type"] == "interrupt"] == ["SIGTERM"]
    assert events[-1]["type"] == "summary"
    assert (events[-1]["outcome"], events[-1]["exit_code"]) == ("interrupted", 143)
    assert_consistent_and_unlocked(work, config, "j")


def test_after_sigterm_the_next_apply_waits_for_the_rollouts_started(
    serve: StartWorkdir,
) -> None:
    """SIGTERM while an apply waits for its revision: the next apply, with nothing else
    to change, does not return 0 while that revision builds: it waits for it (a status
    and an operation event of action no_op) and returns once it is deployed."""
    work = serve("--deploy-seconds", "10")  # internal_docker: no build; long enough under load
    config = work.write("roll.toml", config_text("r", 1))
    apply = work.start("apply", "-c", config, "--auto-approve")
    apply.wait_for("r0: creating")
    apply.process.send_signal(signal.SIGTERM)
    code, out, err = apply.finish()
    assert code == 143, out + err
    code, out, err = work.run("apply", "-c", config, "--auto-approve", "--format", "json")
    assert code == 0, out + err
    events = event_lines(out)
    assert events[0]["rollouts"] == 1
    [end] = [e for e in events if e["type"] == "operation"]
    assert (end["deployment"], end["action"], end["outcome"]) == ("r0", "no_op", "succeeded")
    [live] = work.live("r")
    assert live.active_revision_id == live.latest_revision_id == end["revision_id"]
    assert "waited for 1 rollout" in events[-1]["message"]
    work.assert_converged(config, "r", 1)


def test_retries_and_rate_limit_pauses_are_events(serve: StartWorkdir) -> None:
    """Against a plane answering 30% of requests 503 and allowing 4 requests a second,
    the NDJSON stream has retry events (status 503, a wait) and pause events (429), the
    apply converges, and the text mode shows them as timestamped lines."""
    work = serve(
        "--error-rate", "0.3", "--rate-limit", "4", "--build-seconds", "0.2",
        "--deploy-seconds", "0.3",
    )  # fmt: skip
    config = work.write("noisy.toml", config_text("n", 6))
    code, out, err = work.run("apply", "-c", config, "--auto-approve", "--format", "json")
    assert code == 0, out + err
    events = event_lines(out)
    retries = [e for e in events if e["type"] == "retry"]
    pauses = [e for e in events if e["type"] == "pause"]
    assert retries and {e["status_code"] for e in retries} == {503}
    assert all(e["wait_seconds"] >= 0 for e in retries)
    assert pauses and all(e["wait_seconds"] > 0 for e in pauses)
    assert events[-1]["counts"]["created"] == 6
    work.write(config, config_text("n", 6, image="registry.example.com/app:2"))
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ rate limited \(429\)", out, re.M), out
    work.assert_converged(config, "n", 6)
