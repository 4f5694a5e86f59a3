"""The no-change plan of a large fleet and the CLI's start-up (prints a table; not a test).

    python benchmarks/bench_plan_fleet.py [--count 10000] [--runs 5] [--workdir DIR]
        [--latency-ms 5] [--startup-runs 20]

Starts `planner serve --latency-ms 5` (builds and deploys of 1 s) over a database in
WORKDIR, seeds it with COUNT internal_docker deployments by one `planner apply` unless
WORKDIR already holds them (a fleet is kept between runs: seeding 10,000 takes minutes),
then runs `planner plan --detailed-exitcode` RUNS times, each as its own process, and
prints per run and as medians: wall time, CPU time (user + system, from wait4), peak RSS
and the requests the server counted (a no-change plan is the one paged listing of the
workspace: ceil(N/100)+1 requests). Then the start-up: `planner --help` and `planner plan
--help`, STARTUP_RUNS times each (median and minimum wall time).
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_apply import API_KEY, Row, machine, measured, requests_so_far, start_server

PLANNER = [sys.executable, "-m", "planner"]


def config_text(count: int) -> str:
    return "[defaults.source_config.resource_spec]\ncpu = 0.5\nmemory_mb = 512\n\n" + "".join(
        f'[deployments.svc-{i:05d}]\nsource = "internal_docker"\n'
        f"[deployments.svc-{i:05d}.source_revision_config]\n"
        f'image_uri = "registry.example.com/acme/svc-{i:05d}:1"\n\n'
        for i in range(count)
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def environment(workdir: Path, url: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
        "PLANNER_BASE_URL": url,
        "PLANNER_API_KEY": API_KEY,
        "PLANNER_STATE_DIR": str(workdir / "state"),
    }


def seeded_port(workdir: Path, count: int) -> int | None:
    """The port the fleet of COUNT in WORKDIR was seeded through (the state is tied to
    the URL), None when WORKDIR holds no such fleet."""
    marker = workdir / "seeded"
    if not marker.exists():
        return None
    seeded, port = marker.read_text().split()
    return int(port) if int(seeded) == count else None


def seed(workdir: Path, url: str, count: int) -> Path:
    """The fleet's config, applied once (a marker file remembers the count and port)."""
    config, marker = workdir / "fleet.toml", workdir / "seeded"
    if seeded_port(workdir, count) is not None:
        return config
    config.write_text(config_text(count), encoding="utf-8")
    argv = [*PLANNER, "apply", "-c", str(config), "--auto-approve"]
    print(f"seeding {count} deployments ...", file=sys.stderr, flush=True)
    row = measured(f"seed {count}", url, argv, workdir, environment(workdir, url))
    print(f"seeded in {row.seconds:.0f} s", file=sys.stderr, flush=True)
    time.sleep(2.5)  # every first revision deployed: a no-change plan reads no revision
    marker.write_text(f"{count} {url.rsplit(':', 1)[1]}")
    return config


def startup(argv: list[str], runs: int) -> tuple[float, float]:
    """(median, minimum) wall seconds of ARGV."""
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        walls.append(time.perf_counter() - started)
    return statistics.median(walls), min(walls)


def plan_rows(workdir: Path, url: str, config: Path, runs: int) -> list[Row]:
    argv = [*PLANNER, "plan", "-c", str(config), "--detailed-exitcode"]
    env = environment(workdir, url)
    return [measured(f"plan {n + 1}", url, argv, workdir, env) for n in range(runs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=5.0)
    parser.add_argument("--startup-runs", type=int, default=20)
    parser.add_argument("--workdir", type=Path, help="keeps the seeded fleet between runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-plan-fleet-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        port = seeded_port(workdir, args.count)
        if port is None:  # a fresh fleet: nothing stale left before the server opens its db
            for stale in ("fleet.db", "fleet.db-wal", "fleet.db-shm", "state", "seeded"):
                subprocess.run(["rm", "-rf", str(workdir / stale)], check=True)
            port = free_port()
        server, url = start_server(workdir, args.latency_ms, port=port, db_name="fleet.db")
        try:
            config = seed(workdir, url, args.count)
            requests_so_far(url)
            rows = plan_rows(workdir, url, config, args.runs)
        finally:
            server.terminate()
            server.wait(timeout=10)
    print_plan(rows, args.count, args.latency_ms)
    print_startup(args.startup_runs)


def print_plan(rows: list[Row], count: int, latency_ms: float) -> None:
    print(f"no-change plan of {count:,} deployments, planner serve --latency-ms "
          f"{latency_ms:g}; {machine()}")  # fmt: skip
    print("| run | wall s | CPU s | peak RSS MiB | requests |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row.name} | {row.seconds:.2f} | {row.cpu:.2f} | {row.peak_mb:.0f} | "
              f"{row.requests} |")  # fmt: skip
    wall, cpu = statistics.median(r.seconds for r in rows), statistics.median(r.cpu for r in rows)
    peak, pages = statistics.median(r.peak_mb for r in rows), math.ceil(count / 100) + 1
    print(f"| median | {wall:.2f} | {cpu:.2f} | {peak:.0f} | expected {pages} |")


def print_startup(runs: int) -> None:
    print(f"\n| start-up ({runs} runs) | median s | min s |")
    print("|---|---|---|")
    for argv in (["--help"], ["plan", "--help"], ["apply", "--help"]):
        med, low = startup([*PLANNER, *argv], runs)
        print(f"| planner {' '.join(argv)} | {med:.3f} | {low:.3f} |")


if __name__ == "__main__":
    main()
