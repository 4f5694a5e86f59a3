"""Issue 14's fleet-scale comparison table in one command (prints a markdown table; not a test).

    python benchmarks/fleet_compare.py [--quick] [--count 1000] [--plan-count 10000]
        [--seed-count 30000] [--provider-sample 100] [--sequential-sample 10] [--runs 1]

(`benchmarks/fleet_scale.py` prints issue 21's table of targets; this one compares the
planner with the usual provider approach and a sequential CLI.)

Every measurement runs against its own `planner serve --build-seconds 1 --deploy-seconds 1
--latency-ms 5` on loopback with a fresh database (helpers of bench_apply.py); times are
multiples of one revision's time (build + deploy = 2 s). Rows:
- COUNT creates by `planner apply` at the default parallelism and at 50 / 100, then COUNT
  new revisions at 10 / 50 (bench_apply.py --scale; the median of --runs);
- planner CPU per create (user + system of the `planner apply` process) at COUNT and at
  PLAN_COUNT; then, on that PLAN_COUNT fleet, a no-change `planner plan
  --detailed-exitcode`: wall, CPU, peak RSS and the requests the server counted;
- seeding SEED_COUNT by one `planner apply`: wall and peak RSS.
Side by side, through the project's own `ControlPlaneClient`:
- (a) the usual provider approach: refresh = one GET per deployment, 10 in flight; apply =
  create (or PATCH) then a 5 s poll per deployment holding its slot, 10 in flight;
- (b) the sequential CLI flow: create (or PATCH), wait for the revision, then the next;
  refresh = one GET at a time.
Both are measured on a sample and extrapolated linearly (the table says from how many).
The floor of the machine: one revision (2 s) after the last create, at the create rate of
`planner serve` alone (a raw httpx2 client, 100 in flight, no planner work, no added
latency: bench_controlplane.py's loopback measurement).
`--quick` (about 3 minutes) shrinks every count; the table's labels carry the counts used.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bench_apply import (
    API_KEY,
    REVISION_SECONDS,
    Row,
    ScaleRow,
    baseline,
    config_text,
    machine,
    measured,
    median,
    run_scale,
    start_server,
    step,
)
from bench_controlplane import body, measure_loopback_creates

from planner.api.client import ControlPlaneClient
from planner.api.models import DeploymentCreate, DeploymentPatch, is_final_revision_status
from planner.apply.context import DEFAULT_PARALLELISM

LATENCY_MS = 5.0
PROVIDER_PARALLELISM = 10
PROVIDER_POLL_SECONDS = 5.0
PLANNER = [sys.executable, "-m", "planner"]


@dataclass
class Sizes:
    count: int
    plan_count: int
    seed_count: int
    provider_sample: int
    sequential_sample: int
    refresh_sample: int
    floor_creates: int
    runs: int


FULL = Sizes(1_000, 10_000, 30_000, 100, 10, 1_000, 1_000, 1)
QUICK = Sizes(200, 2_000, 3_000, 20, 4, 300, 500, 1)


@dataclass
class Fleet:
    """One `planner apply` creating a fleet; the no-change plan and refreshes over it."""

    created: Row
    plan: Row | None = None
    provider_refresh: float = 0.0  # seconds for the whole fleet (extrapolated)
    sequential_refresh: float = 0.0


# --- the comparisons, through the project's own client ------------------------------------


async def bounded(calls: list[Callable[[], Awaitable[None]]], parallel: int) -> None:
    limiter = asyncio.Semaphore(parallel)

    async def run(call: Callable[[], Awaitable[None]]) -> None:
        async with limiter:
            await call()

    await asyncio.gather(*(run(call) for call in calls))


async def poll_until_final(client: ControlPlaneClient, deployment_id: str, revision: str) -> None:
    """The provider's wait: sleep 5 s, read the revision, until it is final."""
    while True:
        await asyncio.sleep(PROVIDER_POLL_SECONDS)
        found = await client.get_revision(deployment_id, revision)
        if is_final_revision_status(str(found.status)):
            return


async def provider_apply(url: str, sample: int) -> tuple[float, float, float]:
    """SAMPLE creates, then SAMPLE new revisions, the provider's way: (create s, revision s,
    client CPU ms per deployment over both)."""
    ids: list[str] = []
    async with ControlPlaneClient(url, API_KEY) as client:

        async def create(n: int) -> None:
            made = await client.create_deployment(
                DeploymentCreate.model_validate(body(f"prov-{n:05d}"))
            )
            assert made.latest_revision_id is not None
            ids.append(made.id)
            await poll_until_final(client, made.id, made.latest_revision_id)

        async def revise(deployment_id: str) -> None:
            patch = DeploymentPatch.model_validate({"source_revision_config": {"repo_ref": "v2"}})
            patched = await client.patch_deployment(deployment_id, patch)
            assert patched.latest_revision_id is not None
            await poll_until_final(client, deployment_id, patched.latest_revision_id)

        cpu, started = time.process_time(), time.monotonic()
        await bounded([partial(create, n) for n in range(sample)], PROVIDER_PARALLELISM)
        created = time.monotonic() - started
        started = time.monotonic()
        await bounded([partial(revise, d) for d in ids], PROVIDER_PARALLELISM)
        revised = time.monotonic() - started
        cpu = time.process_time() - cpu
    return created, revised, 1000 * cpu / (2 * sample)


async def refreshes(url: str, sample: int, fleet: int) -> tuple[float, float]:
    """One GET per deployment over a FLEET: 10 in flight, and one at a time (SAMPLE GETs,
    and SAMPLE / 10 sequential ones, extrapolated to FLEET)."""
    async with ControlPlaneClient(url, API_KEY) as client:
        ids = [d.id async for d in client.iter_deployments()][:sample]

        async def get(deployment_id: str) -> None:
            await client.get_deployment(deployment_id)

        started = time.monotonic()
        await bounded([partial(get, d) for d in ids], PROVIDER_PARALLELISM)
        parallel = waves(time.monotonic() - started, len(ids), fleet, PROVIDER_PARALLELISM)
        few = ids[: max(1, len(ids) // 10)]
        started = time.monotonic()
        for deployment_id in few:
            await get(deployment_id)
        sequential = (time.monotonic() - started) * fleet / len(few)
    return parallel, sequential


def comparisons(sizes: Sizes) -> dict[str, float]:
    """Provider and sequential flows on their samples, on one fresh server."""
    with tempfile.TemporaryDirectory(prefix="fleet-scale-") as tmp:
        server, url = start_server(Path(tmp), LATENCY_MS)
        try:
            create, revision, cpu = asyncio.run(provider_apply(url, sizes.provider_sample))
            ids = Path(tmp) / "ids.json"
            timings = {}
            for phase in ("create", "revision"):
                started = time.monotonic()
                asyncio.run(baseline(url, phase, sizes.sequential_sample, ids))
                timings[phase] = time.monotonic() - started
        finally:
            server.terminate()
            server.wait(timeout=10)
    return {  # seconds for the whole sample
        "provider create": create,
        "provider revision": revision,
        "provider cpu ms": cpu,
        "sequential create": timings["create"],
        "sequential revision": timings["revision"],
    }


# --- the planner's own runs -----------------------------------------------------------------


def fleet(count: int, *, plan: bool, refresh_sample: int = 0) -> Fleet:
    """`planner apply` creating COUNT at the default parallelism; then (PLAN) a no-change
    `planner plan` and the refresh comparisons over the same fleet."""
    with tempfile.TemporaryDirectory(prefix="fleet-scale-") as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir, LATENCY_MS)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(workdir / "state"),
        }
        config = workdir / "bench.toml"
        config.write_text(config_text(count, "main"))
        apply = [*PLANNER, "apply", "-c", str(config), "--auto-approve"]
        try:
            result = Fleet(measured(f"create {count}", url, apply, workdir, env))
            if plan:
                argv = [*PLANNER, "plan", "-c", str(config), "--detailed-exitcode"]
                result.plan = measured("no-change plan", url, argv, workdir, env)
                refreshed = asyncio.run(refreshes(url, refresh_sample, count))
                result.provider_refresh, result.sequential_refresh = refreshed
        finally:
            server.terminate()
            server.wait(timeout=10)
    return result


def floor_rate(creates: int) -> float:
    """Creates per second of `planner serve` alone (no planner, 100 in flight)."""
    with tempfile.TemporaryDirectory(prefix="fleet-scale-") as tmp:
        rate, _ = asyncio.run(measure_loopback_creates(Path(tmp) / "floor.db", creates, 100))
    return rate


# --- the table --------------------------------------------------------------------------------


def times(seconds: float) -> str:
    """Seconds and their multiple of one revision's time."""
    return f"{seconds:,.1f} s = {seconds / REVISION_SECONDS:,.1f}×"


def scale_cells(row: ScaleRow, count: int) -> tuple[float, str]:
    """(median wall seconds, the 'now' cell) of one bench_apply --scale row."""
    wall = median([r.seconds for r in row.runs])
    engine = median([r.engine or r.seconds for r in row.runs])
    requests = median([float(r.requests) for r in row.runs]) / count
    return wall, f"{times(wall)} (apply {engine:.1f} s, {requests:.1f} req/deployment)"


def waves(seconds: float, sample: int, count: int, parallel: int) -> float:
    """SECONDS for SAMPLE at PARALLEL in flight, extrapolated to COUNT (whole waves)."""
    return seconds * math.ceil(count / parallel) / math.ceil(sample / parallel)


def apply_rows(
    sizes: Sizes, scale: list[ScaleRow], compared: dict[str, float], floor: float
) -> list[list[str]]:
    n, runs = sizes.count, {(r.phase, r.parallelism): r for r in scale}
    provider, sequential = sizes.provider_sample, sizes.sequential_sample
    rows = []
    wanted = [("create", None), ("create", 50), ("create", 100)]
    wanted += [("new revision", 10), ("new revision", 50)]
    for phase, parallelism in wanted:
        if (phase, parallelism) not in runs:
            continue  # 50 creates = the default: the row above
        _, now = scale_cells(runs[(phase, parallelism)], n)
        kind = "create" if phase == "create" else "revision"
        label = f"parallelism {parallelism or DEFAULT_PARALLELISM}"
        if parallelism is None:
            label = f"default parallelism ({DEFAULT_PARALLELISM})"
        by_provider = waves(compared[f"provider {kind}"], provider, n, PROVIDER_PARALLELISM)
        rows.append(
            [
                f"{n:,} {phase}s, {label}",
                now,
                "≤ 1.5×",
                f"{times(by_provider)} (from {provider})",
                f"{times(compared[f'sequential {kind}'] * n / sequential)} (from {sequential})",
                times(n / floor + REVISION_SECONDS),
            ]
        )
    return rows


def startup_cpu() -> float:
    """CPU seconds of `planner apply --help`: Python and the CLI's imports, no work."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([*PLANNER, "apply", "--help"], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def cpu_row(count: int, created: Row, compared: dict[str, float], startup: float) -> list[str]:
    net = 1000 * (created.cpu - startup) / count
    return [
        f"planner CPU per create, {count:,}",
        f"{1000 * created.cpu / count:.2f} ms ({created.cpu:.1f} s; {net:.2f} ms net of "
        f"start-up {startup:.2f} s)",
        "< 1 ms, flat",
        f"{compared['provider cpu ms']:.2f} ms (client, from the sample)",
        "-",
        "-",
    ]


def plan_row(count: int, fleet: Fleet) -> list[str]:
    assert fleet.plan is not None
    plan, expected = fleet.plan, math.ceil(count / 100) + 1
    return [
        f"no-change plan, {count:,}",
        f"{plan.seconds:.2f} s, CPU {plan.cpu:.2f} s, {plan.peak_mb:.0f} MiB, "
        f"{plan.requests} requests (ceil(N/100)+1 = {expected})",
        "< 2 s, < 300 MB, ceil(N/100)+1",
        f"refresh {fleet.provider_refresh:,.1f} s, {count:,} requests",
        f"refresh {fleet.sequential_refresh:,.1f} s, {count:,} requests",
        "-",
    ]


def seed_row(
    sizes: Sizes, seeded: Fleet, small: Row, compared: dict[str, float], floor: float
) -> list[str]:
    n, row = sizes.seed_count, seeded.created
    provider, sequential = sizes.provider_sample, sizes.sequential_sample
    each, small_each = 1000 * row.seconds / n, 1000 * small.seconds / sizes.count
    return [
        f"seeding {n:,} by apply",
        f"{row.seconds:,.1f} s ({each:.2f} ms each; {small_each:.2f} at {sizes.count:,}), "
        f"CPU {1000 * row.cpu / n:.2f} ms each, {row.peak_mb:.0f} MiB",
        "linear time, < 600 MB",
        f"{waves(compared['provider create'], provider, n, PROVIDER_PARALLELISM):,.0f} s "
        f"(from {provider})",
        f"{compared['sequential create'] * n / sequential:,.0f} s (from {sequential})",
        times(n / floor + REVISION_SECONDS),
    ]


def print_table(rows: list[list[str]]) -> None:
    header = ["", "now", "target", "usual provider (a)", "sequential CLI (b)", "floor"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller counts (about 3 minutes)")
    parser.add_argument("--count", type=int, help="creates and revisions per row (1,000)")
    parser.add_argument("--plan-count", type=int, help="fleet of the no-change plan (10,000)")
    parser.add_argument("--seed-count", type=int, help="deployments seeded by apply (30,000)")
    parser.add_argument("--provider-sample", type=int, help="sample of (a) (100)")
    parser.add_argument("--sequential-sample", type=int, help="sample of (b) (10)")
    parser.add_argument("--runs", type=int, help="runs per apply row, median (1)")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    for field in ("count", "plan_count", "seed_count", "provider_sample", "sequential_sample"):
        if getattr(args, field) is not None:
            setattr(sizes, field, getattr(args, field))
    sizes.runs = args.runs or sizes.runs
    print(header(sizes, args.quick), flush=True)
    print_table(measure(sizes))


def header(sizes: Sizes, quick: bool) -> str:
    mode = "QUICK: smaller counts than the issue's" if quick else "full run"
    return (
        f"fleet_compare.py ({mode}) on {machine()}\n"
        f"planner serve --build-seconds 1 --deploy-seconds 1 --latency-ms {LATENCY_MS:.0f}; "
        f"× = multiples of one revision ({REVISION_SECONDS:.0f} s); apply rows: median of "
        f"{sizes.runs}; (a) and (b) extrapolated linearly from the samples named; floor = "
        f"N / (planner serve's create rate alone) + one revision\n"
    )


def measure(sizes: Sizes) -> list[list[str]]:
    step(f"floor: {sizes.floor_creates} creates straight to planner serve")
    rate = floor_rate(sizes.floor_creates)
    step(f"(a) and (b) on samples of {sizes.provider_sample} and {sizes.sequential_sample}")
    compared = comparisons(sizes)
    step(f"apply: {sizes.count} creates and revisions (bench_apply --scale)")
    creates = [None, *(p for p in (50, 100) if p != DEFAULT_PARALLELISM)]
    scale = run_scale(sizes.count, sizes.runs, creates, [10, 50], LATENCY_MS)
    step(f"apply: {sizes.plan_count} creates, then a no-change plan")
    large = fleet(sizes.plan_count, plan=True, refresh_sample=sizes.refresh_sample)
    step(f"apply: seeding {sizes.seed_count}")
    seeded = fleet(sizes.seed_count, plan=False)
    small = next(r for r in scale if r.phase == "create" and r.parallelism is None).runs[0]
    rows = apply_rows(sizes, scale, compared, rate)
    startup = startup_cpu()
    rows.append(cpu_row(sizes.count, small, compared, startup))
    rows.append(cpu_row(sizes.plan_count, large.created, compared, startup))
    rows.append(plan_row(sizes.plan_count, large))
    rows.append(seed_row(sizes, seeded, small, compared, rate))
    rows.append(["floor: one revision", "", "", "", "", times(REVISION_SECONDS)])
    rows.append(["floor: planner serve creates/s", "", "", "", "", f"{rate:,.0f}/s"])
    return rows


if __name__ == "__main__":
    main()
