"""The bad-release hour, end to end against `planner serve` over loopback: v2 is applied
and fails its health checks, the on-call engineer rolls back, `planner reconcile` keeps
running and never heals the held deployment (not even once the config is fixed: it
re-reads it every cycle), reporting it in its events, its `planner_held_deployments`
gauge and its status page; the hold is released and v3 applied. Every step sends
exactly the requests expected, counted by the server's own metrics
(`controlplane_requests_total{method,route}`).

The client's dialect is configured (`dialect = "seed"`), so no command reads the
server's OpenAPI document; applies and the rollback run with `--no-wait` and the test
waits for each rollout itself, outside the counted windows, so the requests of every
step are the same on every run whatever the timing.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from planner.state import LocalFileBackend
from tests.cli.conftest import Scenario
from tests.event_lines import RECONCILE_SCHEMA, event_lines
from tests.loopback import served

pytestmark = pytest.mark.slow

IMAGE = "registry.example.com/acme/support-agent:{}"
LIST = ("GET", "/v2/deployments")
ONE = "/v2/deployments/{deployment_id}"
PATCH = ("PATCH", ONE)
READ_ONE = ("GET", ONE)
REVISIONS = ("GET", f"{ONE}/revisions")
REDEPLOY = ("POST", f"{ONE}/revisions/{{revision_id}}/redeploy")
_COUNTED = re.compile(
    r'^controlplane_requests_total\{method="(\w+)",route="([^"]+)",status="\d+"\} (\S+)$', re.M
)
Requests = Counter[tuple[str, str]]


def config(url: str, version: str) -> str:
    return (
        f'[control_plane]\nbase_url = "{url}"\ndialect = "seed"\n\n'
        '[deployments.support-agent]\nsource = "internal_docker"\n'
        "[deployments.support-agent.source_revision_config]\n"
        f'image_uri = "{IMAGE.format(version)}"\n'
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`planner serve` (seed dialect) on loopback, revisions rolling out in 0.05 s."""
    settings = ServerSettings(
        db_path=tmp_path / "served.db", build_seconds=0.05, deploy_seconds=0.05
    )
    with served(settings) as url:
        yield url


def answered(url: str) -> Requests:
    """Every API request the server answered so far, by method and route template."""
    text = httpx2.get(f"{url}/metrics").text
    found: Requests = Counter()
    for method, route, value in _COUNTED.findall(text):
        if route.startswith("/v"):
            found[method, route] += int(float(value))
    return found


class Counted:
    """The requests one step of the hour sent (a window over the server's counters)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.before = answered(url)

    def sent(self) -> Requests:
        return answered(self.url) - self.before


def settled(url: str, deployment_id: str) -> dict[str, Any]:
    """The deployment once its latest revision is its active one (read directly)."""
    headers = {"X-Api-Key": EMBEDDED_API_KEY}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        live: dict[str, Any] = httpx2.get(
            f"{url}/v2/deployments/{deployment_id}", headers=headers
        ).json()
        if live["latest_revision_id"] == live["active_revision_id"]:
            return live
        time.sleep(0.02)
    raise AssertionError(f"{deployment_id} did not settle")


def step(scenario: Scenario, url: str, *argv: str) -> tuple[Requests, str]:
    """Run `planner ARGV` (it must succeed); the requests it sent and its stdout."""
    window = Counted(url)
    result = scenario.cli(*argv)
    assert result.code == 0, result.out + result.err
    return window.sent(), result.out


class Controller:
    """`planner reconcile --format json` running (interval 0.2 s, its status page and
    metrics on a loopback port of their own); its events read as they come."""

    def __init__(self, root: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.page = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
        env |= {"PLANNER_API_KEY": EMBEDDED_API_KEY, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        env |= {"PLANNER_STATE_DIR": str(root / "state")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "planner", "reconcile", "-c", "planner.toml",
             "--interval", "0.2", "--format", "json", "--listen", f"127.0.0.1:{port}"],
            cwd=root, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.events: list[dict[str, Any]] = []

    def cycles(self, count: int) -> list[dict[str, Any]]:
        """The next COUNT cycle events (the run must not end first)."""
        assert self.process.stdout is not None
        wanted = sum(e["type"] == "cycle" for e in self.events) + count
        for line in self.process.stdout:
            self.events += event_lines(line, RECONCILE_SCHEMA)
            if sum(e["type"] == "cycle" for e in self.events) == wanted:
                return [e for e in self.events if e["type"] == "cycle"][-count:]
        raise AssertionError("reconcile ended early: " + json.dumps(self.events[-5:]))

    def shown(self) -> tuple[str, float]:
        """Its status page and its `planner_held_deployments` gauge."""
        with httpx2.Client(base_url=self.page, timeout=10) as http:
            page, metrics = http.get("/").text, http.get("/metrics").text
        (gauge,) = re.findall(r"^planner_held_deployments (\S+)$", metrics, re.M)
        return page, float(gauge)

    def __enter__(self) -> Controller:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:  # a failed assertion: never leave it running
            self.process.kill()
            self.process.communicate(timeout=60)

    def stop(self) -> int:
        """SIGTERM; how many cycles it ran (its `stopped` event)."""
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=60)
        self.events += event_lines(out, RECONCILE_SCHEMA) if out else []
        assert self.process.returncode == 0, err
        stopped = self.events[-1]
        assert stopped["type"] == "stopped" and stopped["signal"] == "SIGTERM"
        return int(stopped["cycles"])


def test_the_bad_release_hour(
    scenario: Scenario, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v1 runs; v2 is applied (one PATCH) and fails its health checks; the rollback sends one
    redeploy of v1 and holds the deployment; reconcile runs, reports the hold and sends no
    write, even after the config is fixed to v3; the release sends nothing; applying v3
    sends one PATCH; the next plan is empty."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    scenario.write_config(config(server, "1"))
    created, _ = step(scenario, server, "apply", "--auto-approve", "--no-wait")
    assert created[("POST", "/v2/deployments")] == 1
    state = LocalFileBackend(scenario.state_path)
    agent = state.read().deployments["support-agent"]  # type: ignore[union-attr]
    v1 = settled(server, agent.id)["active_revision_id"]

    # 09:00 v2 goes out: one read of the managed deployments, one PATCH
    scenario.write_config(config(server, "2"))
    sent, _ = step(scenario, server, "apply", "--auto-approve", "--no-wait")
    assert sent == Counter({LIST: 1, PATCH: 1})
    v2 = settled(server, agent.id)["active_revision_id"]
    assert v2 != v1
    # 09:05 its health checks fail (the control plane only knows it DEPLOYED): roll back

    # 09:07 rollback: the deployment and its revisions read, one redeploy of v1
    sent, out = step(
        scenario, server, "rollback", "support-agent", "--auto-approve", "--no-wait",
        "--format", "json",
    )  # fmt: skip
    assert sent == Counter({READ_ONE: 1, REVISIONS: 1, REDEPLOY: 1})
    report = json.loads(out)
    assert (report["revision_id"], report["from_revision_id"]) == (v1, v2)
    assert report["outcome"] == "submitted" and report["held"]["revision_id"] == v1
    rolled = settled(server, agent.id)
    assert rolled["source_revision_config"]["image_uri"] == IMAGE.format("1")
    hold = state.read().deployments["support-agent"].held  # type: ignore[union-attr]
    assert hold is not None and hold.revision_id == v1

    # reconcile runs: each cycle reads the managed deployments once, writes nothing, and
    # reports the held deployment (the config still says v2): its events, its gauge, its
    # status page
    window = Counted(server)
    with Controller(scenario.root) as controller:
        events = controller.cycles(3)
        assert all(
            e["status"] == "ok" and e["held_deployments"] == ["support-agent"] for e in events
        )
        page, gauge = controller.shown()  # the board has the cycles before the last one
        assert gauge == 1 and "<th>Hold</th>" in page
        assert "<code>planner release support-agent</code> lifts it" in page

        # 09:30 the fix (v3) is merged while it runs: still held, not rolled out either
        scenario.write_config(config(server, "3"))
        events = controller.cycles(3)
        assert all(e["pending"] == [] and e["changed"] == [] for e in events)
        assert all(e["held_deployments"] == ["support-agent"] for e in events)
        cycles = controller.stop()
    assert window.sent() == Counter({LIST: cycles})
    plan = json.loads(scenario.plan("--format", "json").out)
    (held,) = plan["held"]
    assert [(f["before"], f["after"]) for f in held["changes"]] == [
        (IMAGE.format("1"), IMAGE.format("3"))
    ]
    assert settled(server, agent.id)["latest_revision_id"] == rolled["latest_revision_id"]

    # 09:35 release: a state write only, nothing sent
    sent, _ = step(scenario, server, "release", "support-agent")
    assert sent == Counter()
    assert state.read().deployments["support-agent"].held is None  # type: ignore[union-attr]

    # 09:36 v3 goes out: one read, one PATCH; then the plan is empty
    sent, _ = step(scenario, server, "apply", "--auto-approve", "--no-wait")
    assert sent == Counter({LIST: 1, PATCH: 1})
    v3 = settled(server, agent.id)
    assert v3["source_revision_config"]["image_uri"] == IMAGE.format("3")
    assert scenario.plan("--detailed-exitcode").code == 0
