"""`planner reconcile` as a running controller against `planner serve` on loopback, with
a file state and with a real PostgreSQL: a hand edit healed by the next cycle, a config
edit rolled out without a restart, SIGTERM, two replicas healing each drift exactly
once, and a standby taking over from a leader killed with SIGKILL.

Intervals are sub-second; "within one interval" is counted in cycles (the edit is
healed by the first cycle that starts after it), never in wall-clock time.
"""

from __future__ import annotations

import json
import os
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
from typing import Any

import httpx2
import pytest

from tests.cli.apply.test_apply_loopback import API_KEY, READ_TIMEOUT, config_text
from tests.controlplane.conftest import ServeProcess, start_serve
from tests.event_lines import RECONCILE_SCHEMA, event_lines
from tests.postgres import unique_name

pytestmark = pytest.mark.slow

INTERVAL = "0.3"
IMAGE = "registry.example.com/app:1"
HAND_IMAGE = "registry.example.com/app:by-hand"
Event = dict[str, Any]


@dataclass
class Replica:
    """A `planner reconcile --format json` process; its events read as they come."""

    process: subprocess.Popen[str]
    events: queue.Queue[Event | None] = field(default_factory=queue.Queue)
    seen: list[Event] = field(default_factory=list)

    def wait_for(self, wanted: Callable[[Event], bool], timeout: float = READ_TIMEOUT) -> Event:
        """The first event (not seen yet) WANTED accepts; fails if the process ends first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if event is None:
                raise AssertionError("ended early:\n" + "\n".join(map(json.dumps, self.seen)))
            self.seen.append(event)
            if wanted(event):
                return event
        raise AssertionError("not in time:\n" + "\n".join(map(json.dumps, self.seen[-20:])))

    def cycle(self, wanted: Callable[[Event], bool] = lambda e: True) -> Event:
        return self.wait_for(lambda e: e["type"] == "cycle" and wanted(e))

    def finish(self) -> tuple[int, list[Event], str]:
        """Wait for the end: exit code, the events not read yet, stderr."""
        assert self.process.stderr is not None
        self.process.wait(timeout=READ_TIMEOUT)
        rest = []
        while (event := self.events.get(timeout=READ_TIMEOUT)) is not None:
            rest.append(event)
        return self.process.returncode, rest, self.process.stderr.read()


def pump_events(process: subprocess.Popen[str], events: queue.Queue[Event | None]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        events.put(event_lines(line, RECONCILE_SCHEMA)[0])
    events.put(None)


@dataclass
class ReconcileController:
    """A working directory, `planner serve`, and the reconcile replicas started in it."""

    root: Path
    server: ServeProcess
    state: str
    replicas: list[Replica] = field(default_factory=list)

    def start(self, *argv: str) -> Replica:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
        env |= {"PLANNER_BASE_URL": self.server.url, "PLANNER_API_KEY": API_KEY}
        env |= {"PLANNER_STATE": self.state, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
        process = subprocess.Popen(
            [sys.executable, "-m", "planner", "reconcile", "-c", "planner.toml",
             "--interval", INTERVAL, "--format", "json", "--listen", "off", *argv],
            cwd=self.root, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        replica = Replica(process)
        threading.Thread(target=pump_events, args=(process, replica.events), daemon=True).start()
        self.replicas.append(replica)
        return replica

    def write_config(self, text: str) -> None:
        (self.root / "planner.toml").write_text(text, encoding="utf-8")

    def http(self) -> httpx2.Client:
        return httpx2.Client(base_url=self.server.url, headers={"X-Api-Key": API_KEY})

    def ids(self) -> dict[str, str]:
        with self.http() as client:
            listing = client.get("/v2/deployments", params={"limit": 100}).json()
        return {d["name"]: d["id"] for d in listing["resources"]}

    def image(self, name: str) -> str:
        with self.http() as client:
            found = client.get(f"/v2/deployments/{self.ids()[name]}").json()
        return str(found["source_revision_config"]["image_uri"])

    def hand_edit(self, name: str, image: str = HAND_IMAGE) -> None:
        """A PATCH straight to the server, as a person would send it."""
        body = {"source_revision_config": {"image_uri": image}}
        with self.http() as client:
            client.patch(f"/v2/deployments/{self.ids()[name]}", json=body).raise_for_status()

    def patches(self) -> int:
        """PATCH requests the server has answered (its own metrics)."""
        with self.http() as client:
            text = client.get("/metrics").text
        found = re.findall(r'^controlplane_requests_total\{method="PATCH",.*\} (\S+)$', text, re.M)
        return int(sum(float(value) for value in found))


@pytest.fixture
def reconcile_serve(tmp_path: Path) -> Iterator[ServeProcess]:
    args = ["--build-seconds", "0.05", "--deploy-seconds", "0.1"]
    serve = start_serve(["--db", str(tmp_path / "serve.db"), "--api-key", API_KEY, *args], tmp_path)
    yield serve
    serve.stop()
    serve.process.communicate(timeout=10)


def reconcile_world(
    tmp_path: Path, reconcile_serve: ServeProcess, state: str
) -> Iterator[ReconcileController]:
    scene = ReconcileController(tmp_path, reconcile_serve, state)
    scene.write_config(config_text("d", 3, IMAGE) + f'[state]\nname = "{unique_name()}"\n')
    yield scene
    for replica in scene.replicas:
        if replica.process.poll() is None:
            replica.process.kill()
        replica.process.communicate(timeout=10)


@pytest.fixture
def file_controller(tmp_path: Path, reconcile_serve: ServeProcess) -> Iterator[ReconcileController]:
    yield from reconcile_world(
        tmp_path, reconcile_serve, str(tmp_path / "state" / "planner.state.json")
    )


@pytest.fixture
def postgres_controller(
    tmp_path: Path, reconcile_serve: ServeProcess, postgres_url: str
) -> Iterator[ReconcileController]:
    yield from reconcile_world(tmp_path, reconcile_serve, postgres_url)


def healed(names: list[str]) -> Callable[[Event], bool]:
    return lambda e: e["status"] == "healed" and e["changed"] == names


def test_the_loop_heals_drift_rolls_out_config_edits_and_stops_on_sigterm(
    file_controller: ReconcileController,
) -> None:
    """One replica on a file state creates what the config declares, heals a hand edit
    in the first cycle that starts after it, rolls out a config edit without a restart,
    and on SIGTERM gives the leadership up and exits 0."""
    replica = file_controller.start()
    assert replica.wait_for(lambda e: e["type"] == "leader")["status"] == "leader"
    replica.cycle(healed(["d0", "d1", "d2"]))
    before_edit = replica.cycle(lambda e: e["status"] == "ok")["cycle"]
    file_controller.hand_edit("d1")
    heal = replica.cycle(lambda e: e["status"] != "ok")
    assert heal["status"] == "healed" and heal["drifted"] == ["d1"]
    # at most one cycle was under way when the edit was sent: the next one heals it
    assert heal["cycle"] <= before_edit + 2
    assert file_controller.image("d1") == IMAGE
    file_controller.write_config(
        (file_controller.root / "planner.toml")
        .read_text(encoding="utf-8")
        .replace(IMAGE, IMAGE + "0")
    )
    replica.cycle(healed(["d0", "d1", "d2"]))
    assert {file_controller.image(name) for name in ("d0", "d1", "d2")} == {IMAGE + "0"}
    replica.process.send_signal(signal.SIGTERM)
    code, rest, err = replica.finish()
    assert code == 0, err
    assert [e["status"] for e in rest if e["type"] == "leader"] == ["resigned"]
    assert rest[-1]["type"] == "stopped" and rest[-1]["signal"] == "SIGTERM"
    assert rest[-1]["exit_code"] == 0
    assert not (file_controller.root / "state" / "planner.state.json.reconcile.lock.json").exists()
    assert "Task was destroyed" not in err  # every heal left an asyncio task pending


def test_sigterm_during_a_heal_winds_it_down_like_ctrl_c(
    file_controller: ReconcileController,
) -> None:
    """A SIGTERM while a heal applies: nothing new is sent, what was sent is recorded,
    the apply's interrupt and summary events come, then the cycle; exit 0."""
    replica = file_controller.start("--max-changes", "50")
    replica.cycle(healed(["d0", "d1", "d2"]))
    file_controller.write_config(config_text("d", 30, IMAGE))
    replica.wait_for(lambda e: e["type"] == "start")
    replica.process.send_signal(signal.SIGTERM)
    code, rest, err = replica.finish()
    assert code == 0, err
    types = [e["type"] for e in rest]
    assert "interrupt" in types and types.index("interrupt") < types.index("summary")
    assert types.index("summary") < types.index("cycle") < types.index("stopped")
    assert next(e for e in rest if e["type"] == "interrupt")["signal"] == "SIGTERM"
    assert "Task was destroyed" not in err


def test_two_replicas_heal_each_drift_exactly_once_and_a_standby_takes_over(
    postgres_controller: ReconcileController,
) -> None:
    """Two replicas on one PostgreSQL state: one leads, one stands by; each hand edit
    is healed by one PATCH of one replica. The leader killed with SIGKILL: the standby
    takes the lead (after the dead leader's lease) and heals the next edit."""
    first = postgres_controller.start("--lock-lease", "2")
    first.wait_for(lambda e: e["type"] == "leader" and e["status"] == "leader")
    first.cycle(healed(["d0", "d1", "d2"]))
    second = postgres_controller.start("--lock-lease", "2")
    standby = second.wait_for(lambda e: e["type"] == "leader")
    assert standby["status"] == "standby" and standby["holder"]
    second.cycle(lambda e: e["status"] == "standby")
    before = postgres_controller.patches()
    for name in ("d0", "d1", "d2"):
        postgres_controller.hand_edit(name)
        first.cycle(healed([name]))
    first.cycle(lambda e: e["status"] == "ok")
    assert postgres_controller.patches() - before == 6  # three by hand, three heals
    assert {e["status"] for e in second.seen if e["type"] == "cycle"} == {"standby"}
    first.process.kill()
    first.process.communicate(timeout=10)
    second.wait_for(lambda e: e["type"] == "leader" and e["status"] == "leader")
    postgres_controller.hand_edit("d2")
    second.cycle(healed(["d2"]))
    assert postgres_controller.image("d2") == IMAGE
