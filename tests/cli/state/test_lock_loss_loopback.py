"""Locks against `planner serve`, as CI runs them.

- A lock lost mid-apply, with a PostgreSQL state: the lock's connection is terminated
  while the apply works and a second apply waits for the lock. The holder stops before
  its next request (exit 1 naming the cause), the second waits out its lease, and no
  deployment's server value differs from what the state records.
- Plans take no lock: six at once beside a held lock (file and PostgreSQL) all succeed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from planner.state.location import open_backend
from tests.cli.apply.test_apply_loopback import API_KEY, READ_TIMEOUT, config_text
from tests.controlplane.conftest import ServeProcess, start_serve
from tests.postgres import unique_name, url_password

pytestmark = pytest.mark.slow

COUNT = 16


@pytest.fixture
def loss_server(tmp_path: Path) -> Iterator[ServeProcess]:
    """`planner serve` slow enough (100 ms a request) for an apply to be caught mid-way."""
    args = ["--latency-ms", "100", "--build-seconds", "0.2", "--deploy-seconds", "0.3"]
    serve = start_serve(["--db", str(tmp_path / "serve.db"), "--api-key", API_KEY, *args], tmp_path)
    yield serve
    serve.stop()
    serve.process.communicate(timeout=10)


def spawn_planner(
    loss_server: ServeProcess, state_url: str, cwd: Path, *argv: str
) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    env |= {"PLANNER_BASE_URL": loss_server.url, "PLANNER_API_KEY": API_KEY}
    env |= {"PLANNER_STATE": state_url, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "planner", *argv, "-c", "loss.toml"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def terminate_lock_connection(url: str, name: str) -> None:
    """pg_terminate_backend of the connection holding state NAME's lock, once it has one."""
    statement = (
        "SELECT pg_terminate_backend(l.backend_pid) FROM planner.locks l "
        "JOIN planner.states s ON s.id = l.state_id WHERE s.name = %s"
    )
    deadline = time.monotonic() + READ_TIMEOUT
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            if conn.execute(statement, (name,)).fetchone() == (True,):
                return
            time.sleep(0.02)
    raise AssertionError("no lock holder to terminate")


def drifted(plan: dict[str, Any]) -> list[str]:
    """Deployments whose server value differs from what the state records."""
    return sorted({d["name"] for d in plan["drift"]})


def test_lock_loss_mid_apply_stops_the_holder(
    tmp_path: Path, loss_server: ServeProcess, postgres_url: str
) -> None:
    """The holder whose lock connection is killed stops (exit 1, the cause named); the
    waiting apply converges; no deployment's server value differs from the state."""
    name = unique_name()
    (tmp_path / "loss.toml").write_text(
        config_text("l", COUNT) + f'[state]\nname = "{name}"\n', encoding="utf-8"
    )
    first = spawn_planner(
        loss_server, postgres_url, tmp_path, "apply", "--auto-approve", "--parallelism", "2",
        "--lock-lease", "1.5",
    )  # fmt: skip
    assert first.stdout is not None
    for line in first.stdout:
        if "creating" in line or "created" in line:
            break
    terminate_lock_connection(postgres_url, name)
    second = spawn_planner(
        loss_server, postgres_url, tmp_path, "apply", "--auto-approve", "--lock-timeout", "60"
    )
    rest, err = first.communicate(timeout=READ_TIMEOUT * 2)
    assert first.returncode == 1, rest + err
    assert "the state lock was lost" in rest + err
    password = url_password(postgres_url)
    assert password is None or password not in rest + err
    out, err = second.communicate(timeout=READ_TIMEOUT * 2)
    assert second.returncode == 0, out + err
    check = spawn_planner(loss_server, postgres_url, tmp_path, "plan", "--format", "json")
    out, err = check.communicate(timeout=READ_TIMEOUT * 2)
    plan = json.loads(out)
    assert drifted(plan) == [], plan["drift"]
    assert {c["action"] for c in plan["changes"]} == {"no_op"}
    assert len(plan["changes"]) == COUNT


@pytest.mark.parametrize("store", ["file", "postgresql"])
def test_six_plans_at_once_beside_a_held_lock(
    tmp_path: Path, loss_server: ServeProcess, postgres_url: str, store: str
) -> None:
    """Six plans at once on one state while a writer holds its lock all succeed, each
    naming the holder, and none of them leaves a lock behind."""
    name = unique_name()
    (tmp_path / "loss.toml").write_text(
        config_text("p", 3) + f'[state]\nname = "{name}"\n', encoding="utf-8"
    )
    state = postgres_url if store == "postgresql" else str(tmp_path / "loss.state.json")
    backend = open_backend(state, name=name)
    try:
        with backend.lock("apply") as held:
            plans = [
                spawn_planner(loss_server, state, tmp_path, "plan", "--format", "json")
                for _ in range(6)
            ]
            results = [plan.communicate(timeout=READ_TIMEOUT * 2) for plan in plans]
        assert [plan.returncode for plan in plans] == [0] * 6, results
        for out, _ in results:
            assert json.loads(out)["lock"]["id"] == held.info.id
        assert backend.lock_info() is None
    finally:
        backend.close()
