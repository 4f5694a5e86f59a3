"""Benchmark the HTTP side of `planner reconcile` (prints numbers; not a test).

    python benchmarks/bench_reconcile_http.py [--deployments 100] [--requests 200]

- the cost of importing `planner.reconcile.http` in a fresh interpreter (what `--listen`
  adds to the command's start-up: prometheus-client, markdown-it-py, the page), the median
  of 5 runs;
- `serve_status` until it listens, the first answer, and `close()`;
- per request over loopback (median and p99 of REQUESTS, one keep-alive-less client):
  `/` with DEPLOYMENTS rows, 50 cycles and a plan updating every deployment,
  `/metrics` and `/readyz`;
- the cost of one board update with the metrics listening (`record_cycle`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.plan.model import Action, Change, FieldChange, Plan, Summary
from planner.reconcile.http import serve_status
from planner.reconcile.status import CycleRecord, DeploymentRow, StatusBoard
from planner.render.markdown import render_markdown


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import planner.reconcile.http; "
    code += "print(time.perf_counter() - t)"
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(5)
    ]  # fmt: skip
    return statistics.median(runs)


def filled(deployments: int) -> StatusBoard:
    board = StatusBoard()
    now = datetime.now(UTC)
    board.set_leader("bench (pid 1)", True)
    for index in range(50):
        board.record_cycle(CycleRecord(now, 1.0 + index / 10, "heal", "healed", 3, 0, 3, "ok"))
    rows = [
        DeploymentRow(f"agent-{i:03}", f"agent-{i:03}-prod", "healthy", i % 7 == 0, "update", now)
        for i in range(deployments)
    ]
    board.set_deployments(rows)
    field = FieldChange(path="source_config.resource_spec.max_scale", change_class="in-place",
                        before=1, after=3)  # fmt: skip
    changes = [Change(name=r.address, action=Action.UPDATE, fields=[field]) for r in rows]
    board.set_last_plan(render_markdown(Plan(summary=Summary(update=deployments), changes=changes)))
    board.set_ready(True)
    return board


def timed_gets(url: str, count: int) -> tuple[float, float, int]:
    times, size = [], 0
    for _ in range(count):
        start = time.perf_counter()
        with urllib.request.urlopen(url) as response:
            size = len(response.read())
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1], size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deployments", type=int, default=100)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    print(f"import planner.reconcile.http (fresh interpreter): {import_seconds() * 1000:.0f} ms")
    board = filled(args.deployments)
    start = time.perf_counter()
    server = serve_status(board, "127.0.0.1:0")
    listening = time.perf_counter()
    urllib.request.urlopen(f"{server.url}/healthz").read()
    first = time.perf_counter()
    print(f"serve_status until listening: {(listening - start) * 1000:.2f} ms; "
          f"first answer: {(first - listening) * 1000:.2f} ms")  # fmt: skip
    for path in ("/", "/metrics", "/readyz"):
        median, p99, size = timed_gets(f"{server.url}{path}", args.requests)
        print(f"GET {path:<9} median {median * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms  "
              f"{size:>7} bytes")  # fmt: skip
    record = CycleRecord(datetime.now(UTC), 1.0, "heal", "ok", 0, 0, 0, "ok")
    start = time.perf_counter()
    for _ in range(1000):
        board.record_cycle(record)
    print(
        f"record_cycle with metrics listening: {(time.perf_counter() - start) * 1000:.3f} us each"
    )
    start = time.perf_counter()
    server.close()
    print(f"close(): {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
