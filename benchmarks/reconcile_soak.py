"""Soak `planner reconcile` against `planner serve` on loopback (prints numbers; not a test).

    python benchmarks/reconcile_soak.py [--duration 540] [--count 100] [--interval 2]
    python benchmarks/reconcile_soak.py --quick          # 60 s

Starts `planner serve` (build 0.2 s, deploy 0.3 s) on a free port with a fresh database,
a config of COUNT `internal_docker` deployments, and one `planner reconcile --format
json` (heal mode, a file state, `--max-changes COUNT`), which creates them all. Then, for
DURATION seconds, every 1-5 s (random, `--seed`), 1-3 random deployments are edited by
hand: a PATCH of their image straight to the server, as a person would. The controller's
NDJSON events say which cycle healed what: the time to heal of an edit is from its PATCH
to the `cycle` event naming the deployment in `changed` (an edit made again before it
was healed counts once, from the first). After the last edit it waits until every edit
is healed, then stops the controller with SIGTERM (it must exit 0).

Reported: edits, drifts healed and not healed, time to heal p50 / p99 / max, cycles by
result, errors (cycles with result `error`, failed operations, `error` events), and the
controller's RSS (from /proc): after warm-up (the first cycle in sync after the
creates), at the end, and its growth (the bar: under 10 %), with samples along the way
(a plateau, or a steady climb).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

API_KEY = "soak-key"
IMAGE = "registry.example.com/soak/app:1"
Event = dict[str, Any]


def config_text(count: int) -> str:
    return "".join(
        f'[deployments.soak-{i:03d}]\nsource = "internal_docker"\n'
        f'[deployments.soak-{i:03d}.source_revision_config]\nimage_uri = "{IMAGE}"\n\n'
        for i in range(count)
    )


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def request(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"X-Api-Key": API_KEY, "Content-Type": "application/json"}
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as response:
        return json.loads(response.read() or b"null")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Soak:
    url: str
    controller: subprocess.Popen[str]
    events: queue.Queue[tuple[float, Event] | None] = field(default_factory=queue.Queue)
    edited: dict[str, float] = field(default_factory=dict)  # name -> first unhealed edit
    heal_seconds: list[float] = field(default_factory=list)
    edits: int = 0
    results: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)

    def pump(self) -> None:
        assert self.controller.stdout is not None
        for line in self.controller.stdout:
            self.events.put((time.monotonic(), json.loads(line)))
        self.events.put(None)

    def take_events(self, until: float) -> Event | None:
        """Read events until the monotonic time UNTIL; the last cycle event read."""
        last = None
        while (left := until - time.monotonic()) > 0:
            try:
                item = self.events.get(timeout=left)
            except queue.Empty:
                break
            if item is None:
                raise SystemExit(f"the controller ended early (exit {self.controller.wait()})")
            last = self.seen(*item) or last
        return last

    def seen(self, at: float, event: Event) -> Event | None:
        kind = event["type"]
        if kind == "error":
            self.errors.append(event["error"]["message"])
        if kind == "operation" and event["outcome"] == "failed":
            self.errors.append(f"{event['deployment']}: {event['error']}")
        if kind != "cycle":
            return None
        self.results[event["status"]] += 1
        if event["status"] == "error":
            self.errors.append(event["message"])
        for name in event["changed"]:
            if name in self.edited:
                self.heal_seconds.append(at - self.edited.pop(name))
        return event

    def hand_edit(self, rng: random.Random) -> None:
        for name in rng.sample(sorted(self.ids), rng.randint(1, 3)):
            image = f"registry.example.com/soak/hand:{rng.randrange(10**6)}"
            body = {"source_revision_config": {"image_uri": image}}
            request(f"{self.url}/v2/deployments/{self.ids[name]}", "PATCH", body)
            self.edited.setdefault(name, time.monotonic())
            self.edits += 1


def start_serve(root: Path) -> tuple[subprocess.Popen[str], str]:
    serve = subprocess.Popen(
        [sys.executable, "-m", "planner", "serve", "--port", "0", "--db", str(root / "s.db"),
         "--api-key", API_KEY, "--build-seconds", "0.2", "--deploy-seconds", "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=root,
    )  # fmt: skip
    assert serve.stdout is not None
    return serve, serve.stdout.readline().strip()


def start_controller(root: Path, url: str, count: int, interval: float) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    env |= {"PLANNER_BASE_URL": url, "PLANNER_API_KEY": API_KEY, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "planner", "reconcile", "--interval", str(interval),
         "--format", "json", "--listen", "off", "--max-changes", str(count)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=root, env=env,
    )  # fmt: skip


def warm_up(soak: Soak, count: int) -> None:
    """Until the creates are done and a cycle finds everything in sync."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        cycle = soak.take_events(time.monotonic() + 1)
        if cycle is not None and cycle["status"] == "ok":
            listing = request(f"{soak.url}/v2/deployments?limit=100")["resources"]
            listing += request(f"{soak.url}/v2/deployments?limit=100&offset=100")["resources"]
            soak.ids = {d["name"]: d["id"] for d in listing}
            assert len(soak.ids) == count, len(soak.ids)
            return
    raise SystemExit("no cycle in sync within 300 s of the start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=540.0)
    parser.add_argument("--quick", action="store_true", help="a 60 s soak")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    duration = 60.0 if args.quick else args.duration
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "planner.toml").write_text(config_text(args.count), encoding="utf-8")
        serve, url = start_serve(root)
        controller = start_controller(root, url, args.count, args.interval)
        soak = Soak(url, controller)
        threading.Thread(target=soak.pump, daemon=True).start()
        try:
            return run(soak, args.count, duration, args.interval, rng)
        finally:
            for process in (controller, serve):
                if process.poll() is None:
                    process.kill()
                process.wait()


def run(soak: Soak, count: int, duration: float, interval: float, rng: random.Random) -> int:
    started = time.monotonic()
    warm_up(soak, count)
    soak.take_events(time.monotonic() + 3 * interval)  # a few cycles in sync
    baseline = rss_mb(soak.controller.pid)
    samples = [baseline]
    print(f"warm-up: {time.monotonic() - started:.1f} s; RSS after warm-up {baseline:.1f} MB")
    end = time.monotonic() + duration
    while time.monotonic() < end:
        soak.hand_edit(rng)
        soak.take_events(time.monotonic() + rng.uniform(1.0, 5.0))
        samples.append(rss_mb(soak.controller.pid))
    settle = time.monotonic() + 10 * interval + 30
    while soak.edited and time.monotonic() < settle:
        soak.take_events(time.monotonic() + 1)
    final = rss_mb(soak.controller.pid)
    soak.controller.send_signal(signal.SIGTERM)
    exit_code = soak.controller.wait(timeout=60)
    report(soak, baseline, final, max([*samples, final]), exit_code)
    step = max(1, len(samples) // 6)
    trend = ", ".join(f"{mb:.1f}" for mb in [*samples[::step], final])
    print(f"controller RSS over the soak (MB): {trend}")
    ok = not soak.edited and not soak.errors and exit_code == 0 and final < baseline * 1.10
    return 0 if ok else 1


def report(soak: Soak, baseline: float, final: float, peak: float, exit_code: int) -> None:
    heals = soak.heal_seconds
    print(f"edits (PATCHes by hand): {soak.edits}")
    print(f"drifts healed: {len(heals)}; not healed: {len(soak.edited)} {sorted(soak.edited)}")
    if heals:
        print(
            f"time to heal: p50 {statistics.median(heals):.2f} s, p99 "
            f"{percentile(heals, 0.99):.2f} s, max {max(heals):.2f} s"
        )
    print(f"cycles: {sum(soak.results.values())} {dict(sorted(soak.results.items()))}")
    print(f"errors: {len(soak.errors)} {soak.errors[:5]}")
    growth = (final - baseline) / baseline * 100
    print(f"controller RSS: {baseline:.1f} MB after warm-up, {final:.1f} MB at the end "
          f"({growth:+.1f} %), peak {peak:.1f} MB")  # fmt: skip
    print(f"SIGTERM: exit {exit_code}")


if __name__ == "__main__":
    sys.exit(main())
