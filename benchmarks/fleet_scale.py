"""Issue 21's fleet-scale table in one run: every figure next to its target (not a test).

    python benchmarks/fleet_scale.py [--quick] [--count 1000] [--plan-count 10000]
        [--seed-count 30000] [--runs 1]

Every measurement runs against its own `planner serve --build-seconds 1 --deploy-seconds 1
--latency-ms 5` on loopback with a fresh database (bench_apply.py's helpers). Rows:
- the machine's floor: a lean client (benchmarks/lean_client.py: raw httpx2, pre-built
  bodies, 50 in flight, list-batched polls) creating COUNT, measured in this run; with it
  the server's CPU per create (from /proc, over the create phase alone);
- `planner apply` creating COUNT at the default parallelism, as a multiple of that floor
  (the median of --runs, each next to its own floor run);
- the planner's CPU per create (user + system of the process, wait4) at COUNT (the median
  of the --runs applies), PLAN_COUNT and SEED_COUNT, and the lean client's;
- a no-change `planner plan --detailed-exitcode` over the PLAN_COUNT fleet, run --runs
  times: the medians of wall, CPU and peak RSS, and the most requests any run made
  against ceil(N/100)+1; then the server's CPU per 100-item list page over that fleet (a
  full listing, from /proc);
- one `planner apply` creating SEED_COUNT: wall as a multiple of the PLAN_COUNT apply's
  (linear = SEED_COUNT / PLAN_COUNT; the target allows 10 % over it), peak RSS;
- `python -m planner --help` and `python -m planner apply --help` (the start of a
  command: Python and the imports it needs): wall, the median of 5 each.
CPU is the steadier figure on a shared machine; walls are noisy there, so the floor is
measured beside each apply. `--quick` shrinks the counts (the labels carry them).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from bench_apply import API_KEY, Row, config_text, machine, measured, start_server, step
from lean_client import lean_apply

LATENCY_MS = 5.0
PLANNER = [sys.executable, "-m", "planner"]
PAGE = 100


@dataclass
class Sizes:
    count: int
    plan_count: int
    seed_count: int
    runs: int


FULL = Sizes(1_000, 10_000, 30_000, 1)
QUICK = Sizes(200, 2_000, 3_000, 1)


@dataclass
class Floor:
    """One lean-client run: wall, its CPU per create, the server's CPU per create."""

    seconds: float
    client_ms: float
    server_ms: float


@dataclass
class Fleet:
    """One `planner apply` creating a fleet; the no-change plan and list pages over it."""

    created: Row
    plan: Row | None = None
    page_ms: float = 0.0


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def serving() -> Iterator[tuple[Path, subprocess.Popen[str], str]]:
    """A fresh `planner serve` (5 ms latency) in a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="fleet-scale-") as tmp:
        server, url = start_server(Path(tmp), LATENCY_MS)
        try:
            yield Path(tmp), server, url
        finally:
            server.terminate()
            server.wait(timeout=10)


def floor(count: int) -> Floor:
    """The lean client creating COUNT on a fresh server."""
    with serving() as (_, server, url):
        before = server_cpu(server.pid)
        marks: list[float] = []
        result = asyncio.run(
            lean_apply(url, count, on_created=lambda: marks.append(server_cpu(server.pid)))
        )
    return Floor(
        result["seconds"], 1000 * result["create_cpu"] / count, 1000 * (marks[0] - before) / count
    )


def planner_env(workdir: Path, url: str) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
        "PLANNER_BASE_URL": url,
        "PLANNER_API_KEY": API_KEY,
        "PLANNER_STATE_DIR": str(workdir / "state"),
    }


def fleet(count: int, *, plans: int = 0) -> Fleet:
    """`planner apply` creating COUNT at the default parallelism; then PLANS no-change
    `planner plan`s (their medians) and a full listing over the same fleet."""
    with serving() as (workdir, server, url):
        env = planner_env(workdir, url)
        config = workdir / "bench.toml"
        config.write_text(config_text(count, "main"))
        apply = [*PLANNER, "apply", "-c", str(config), "--auto-approve"]
        result = Fleet(measured(f"create {count}", url, apply, workdir, env))
        if plans:
            argv = [*PLANNER, "plan", "-c", str(config), "--detailed-exitcode"]
            runs = [measured("no-change plan", url, argv, workdir, env) for _ in range(plans)]
            result.plan = median_row(runs)
            before = server_cpu(server.pid)
            pages = asyncio.run(full_listing(url))
            result.page_ms = 1000 * (server_cpu(server.pid) - before) / pages
    return result


def median_row(rows: list[Row]) -> Row:
    """The medians of ROWS' wall, CPU and peak RSS; the most requests any of them made."""
    return Row(
        rows[0].name,
        statistics.median(row.seconds for row in rows),
        max(row.requests for row in rows),
        statistics.median(row.peak_mb for row in rows),
        cpu=statistics.median(row.cpu for row in rows),
    )


async def full_listing(url: str) -> int:
    """Every deployment, 100 a page, one page after another; the pages read."""
    headers = {"X-Api-Key": API_KEY}
    async with httpx2.AsyncClient(base_url=url, headers=headers) as client:
        offset, pages = 0, 0
        while True:
            found = await client.get("/v2/deployments", params={"limit": PAGE, "offset": offset})
            pages += 1
            body = found.json()
            if len(body["resources"]) < PAGE:
                return pages
            offset = body["offset"]


def startup_seconds(*command: str) -> float:
    """Median wall of `python -m planner COMMAND` over 5 runs."""
    walls = []
    for _ in range(5):
        started = time.monotonic()
        subprocess.run([*PLANNER, *command], check=True, capture_output=True)
        walls.append(time.monotonic() - started)
    return statistics.median(walls)


# --- the table --------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def verdicts(*parts: tuple[str, bool]) -> str:
    """One verdict per part of a compound target, e.g. `wall met, RSS **not met**`."""
    if all(ok for _, ok in parts):
        return "met"
    return ", ".join(f"{label} {verdict(ok)}" for label, ok in parts)


def rows(
    sizes: Sizes,
    pairs: list[tuple[Floor, Row]],
    large: Fleet,
    seeded: Fleet,
    startup: tuple[float, float],
) -> list[list[str]]:
    n, big, huge = sizes.count, sizes.plan_count, sizes.seed_count
    ratios = [row.seconds / lean.seconds for lean, row in pairs]
    ratio = statistics.median(ratios)
    lean = pairs[len(pairs) // 2][0]
    small_cpu = statistics.median(row.cpu for _, row in pairs)
    walls = ", ".join(f"{row.seconds:.2f} s / {f.seconds:.2f} s" for f, row in pairs)
    plan = large.plan
    assert plan is not None
    expected = math.ceil(big / PAGE) + 1
    per = [
        1000 * cpu / count
        for cpu, count in ((small_cpu, n), (large.created.cpu, big), (seeded.created.cpu, huge))
    ]
    linear = huge / big
    growth = seeded.created.seconds / large.created.seconds
    return [
        [
            f"no-change plan, {big:,} deployments: wall / CPU / peak RSS, requests",
            f"{plan.seconds:.2f} s / {plan.cpu:.2f} s / {plan.peak_mb:.0f} MiB, "
            f"{plan.requests} requests",
            f"< 2.0 s / < 1.5 s / < 150 MiB, ceil(N/100)+1 = {expected}",
            verdicts(
                ("wall", plan.seconds < 2),
                ("CPU", plan.cpu < 1.5),
                ("RSS", plan.peak_mb < 150),
                ("requests", plan.requests <= expected),
            ),
        ],
        [
            f"`planner apply`, {n:,} creates, default parallelism, × the lean client's time",
            f"{ratio:.2f}× (planner / floor: {walls})",
            "≤ 1.25×",
            verdict(ratio <= 1.25),
        ],
        [
            f"planner CPU per create at {n:,} / {big:,} / {huge:,}",
            " / ".join(f"{ms:.2f} ms" for ms in per) + f" (lean client: {lean.client_ms:.2f} ms)",
            "≤ 1.5 ms at every size, flat",
            verdict(max(per) <= 1.5),
        ],
        [
            f"one apply creating {huge:,}: wall / peak RSS",
            f"{seeded.created.seconds:,.1f} s = {growth:.2f}× the {big:,} apply's "
            f"{large.created.seconds:,.1f} s / {seeded.created.peak_mb:.0f} MiB",
            f"≤ {1.1 * linear:.1f}× (linear: {linear:.1f}×) / < 600 MB",
            verdicts(
                ("wall", growth <= 1.1 * linear),
                ("RSS", seeded.created.peak_mb * 1.048576 < 600),
            ),
        ],
        [
            "`planner --help` / the start of a command (`planner apply --help`)",
            f"{startup[0]:.2f} s / {startup[1]:.2f} s",
            "< 0.2 s",
            verdicts(("--help", startup[0] < 0.2), ("apply --help", startup[1] < 0.2)),
        ],
        [
            "local control plane: server CPU per create / per 100-item list page",
            f"{lean.server_ms:.2f} ms / {large.page_ms:.2f} ms (list of {big:,})",
            "≤ 0.5 ms / ≤ 3 ms",
            verdicts(("create", lean.server_ms <= 0.5), ("list page", large.page_ms <= 3)),
        ],
    ]


def print_table(table: list[list[str]]) -> None:
    print("| Figure | Now | Target | |")
    print("|---|---|---|---|")
    for row in table:
        print("| " + " | ".join(row) + " |")


def header(sizes: Sizes, quick: bool) -> str:
    mode = "QUICK: smaller counts than the issue's" if quick else "full run"
    return (
        f"fleet_scale.py ({mode}) on {machine()}\n"
        f"planner serve --build-seconds 1 --deploy-seconds 1 --latency-ms {LATENCY_MS:.0f}; "
        f"apply vs floor and the no-change plan: medians of {sizes.runs} run(s), "
        "the apply pairs each on fresh servers\n"
    )


def measure(sizes: Sizes) -> list[list[str]]:
    pairs = []
    for run in range(sizes.runs):
        step(f"run {run + 1}: lean client, then planner apply, {sizes.count} creates each")
        lean = floor(sizes.count)
        pairs.append((lean, fleet(sizes.count).created))
    step(f"apply: {sizes.plan_count} creates, {sizes.runs} no-change plan(s), a full listing")
    large = fleet(sizes.plan_count, plans=sizes.runs)
    step(f"apply: {sizes.seed_count} creates")
    seeded = fleet(sizes.seed_count)
    step("start-up")
    return rows(
        sizes, pairs, large, seeded, (startup_seconds("--help"), startup_seconds("apply", "--help"))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts (about 2 minutes)")
    parser.add_argument("--count", type=int, help="creates of the apply and floor rows (1,000)")
    parser.add_argument("--plan-count", type=int, help="fleet of the no-change plan (10,000)")
    parser.add_argument("--seed-count", type=int, help="creates of the largest apply (30,000)")
    parser.add_argument(
        "--runs", type=int, help="apply/floor pairs and no-change plans, medians (1)"
    )
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    for field in ("count", "plan_count", "seed_count", "runs"):
        if getattr(args, field) is not None:
            setattr(sizes, field, getattr(args, field))
    print(header(sizes, args.quick), flush=True)
    print_table(measure(sizes))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"\n(children's CPU in all: {usage.ru_utime + usage.ru_stime:,.1f} s)")


if __name__ == "__main__":
    main()
