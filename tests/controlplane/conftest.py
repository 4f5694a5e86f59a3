"""Fixtures for the local control plane tests: settings, the app in-process, a client,
and `planner serve` as a subprocess on a free loopback port."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
from fastapi import FastAPI
from starlette.exceptions import StarletteDeprecationWarning

from planner.controlplane.app import create_app
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings

# Starlette warns when its test client runs on httpx rather than httpx2; the client works
# the same, and the project depends on httpx2. Silence exactly that warning, once, here.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

TENANT_A = "6f1c2c1e-0000-4000-8000-00000000000a"
TENANT_B = "6f1c2c1e-0000-4000-8000-00000000000b"
SERVE_START_TIMEOUT = 30.0


class FakeClock:
    """Epoch seconds that only move when a test says so."""

    def __init__(self, start: float = 1_800_000_000.25) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cp_settings(tmp_path: Path) -> ServerSettings:
    """Settings for one in-process control plane: a fresh db, fast lifecycle, embedded key."""
    return ServerSettings(
        db_path=tmp_path / "cp.db", build_seconds=0.2, deploy_seconds=0.2, delete_seconds=0.1
    )


@pytest.fixture
def cp_app(cp_settings: ServerSettings) -> FastAPI:
    return create_app(cp_settings)


@pytest.fixture
def cp_client(cp_app: FastAPI) -> Iterator[TestClient]:
    """A client of the in-process app (lifespan run), sending the embedded key."""
    with TestClient(cp_app, headers={"X-Api-Key": EMBEDDED_API_KEY}) as client:
        yield client


@pytest.fixture
def make_client() -> Iterator[Callable[[ServerSettings], TestClient]]:
    """Build clients of apps with custom settings (no default headers); closed at teardown."""
    opened: list[TestClient] = []

    def make(settings: ServerSettings) -> TestClient:
        client = TestClient(create_app(settings))
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in reversed(opened):
        client.__exit__(None, None, None)


@dataclass
class ServeProcess:
    url: str
    process: subprocess.Popen[str]
    lines: queue.Queue[str]
    reader: threading.Thread

    def next_line(self, timeout: float = SERVE_START_TIMEOUT) -> str:
        """The next stdout line, failing (not hanging) after `timeout` seconds."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("planner serve printed nothing before the timeout") from None

    def rest_of_output(self, timeout: float = 15.0) -> list[str]:
        """The stdout lines not read yet, once the process has ended."""
        self.process.wait(timeout)
        self.reader.join(timeout)
        rest = []
        while not self.lines.empty():
            rest.append(self.lines.get_nowait())
        return rest

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, then wait; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)


def pump_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line.strip())


def start_serve(args: list[str], cwd: Path) -> ServeProcess:
    """Start `python -m planner serve --port 0 ARGS`; return once it printed its URL."""
    command = [sys.executable, "-m", "planner", "serve", "--port", "0", *args]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=pump_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    server = ServeProcess(url="", process=process, lines=lines, reader=reader)
    try:
        server.url = server.next_line()
    except AssertionError:
        process.kill()
        raise
    if not server.url.startswith("http://"):
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"planner serve did not start: {server.url!r}\n{err}")
    return server


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[Callable[..., ServeProcess]]:
    """Start `planner serve` subprocesses (`serve_process(*args)`); killed at teardown."""
    started: list[ServeProcess] = []

    def start(*args: str) -> ServeProcess:
        server = start_serve(list(args), cwd=tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
        server.process.communicate(timeout=10)
