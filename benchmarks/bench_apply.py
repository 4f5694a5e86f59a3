"""Benchmark `planner apply` against `planner serve` on loopback (prints a table; not a test).

    python benchmarks/bench_apply.py [--count 100] [--baseline-count 100]
    python benchmarks/bench_apply.py --scale [--count 1000] [--runs 3]
        [--create-parallelism default,50,100] [--revision-parallelism 10,50]

Starts `planner serve --build-seconds 1 --deploy-seconds 1` on a free port with a fresh
database. `--scale` measures apply near the floor: per run and per parallelism, a fresh
server, `planner apply` creating COUNT deployments, then (for the parallelisms of
`--revision-parallelism`) a new revision for all of them; each as a multiple of one
revision's time (build + deploy = 2 s), the median of `--runs`, with the requests per
deployment and the CPU time of the planner process (user + system, from wait4).
Without `--scale` it measures, each as its own process:
- `planner apply` creating COUNT git_host deployments (one revision each: build 1 s +
  deploy 1 s), then a new revision for all of them, then `planner destroy`;
- a sequential baseline through the same client (`ControlPlaneClient`): create one
  deployment and wait for its revision, then the next; likewise for the new revisions;
  one bulk DELETE per deployment.
Per phase: wall time of the process (Python start-up and planning included), the
apply's own time (from its summary line), requests the server counted
(`controlplane_requests_total` on `/v2/...` routes, from `GET /metrics`) and the peak
RSS of the process (wait4).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

API_KEY = "bench-key"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
REQUESTS = re.compile(r'^controlplane_requests_total\{[^}]*route="(/v2[^"]*)"[^}]*\} (\S+)$')


@dataclass
class Row:
    name: str
    seconds: float
    requests: int
    peak_mb: float
    engine: float | None = None  # the apply's own time (its summary line), no startup
    cpu: float = 0.0  # user + system seconds of the process


SUMMARY_TIME = re.compile(r"complete: .*\((\d+\.\d)s\)\.$", re.MULTILINE)


def config_text(count: int, ref: str) -> str:
    return "".join(
        f'[deployments.bench-{i:03d}]\nsource = "git_host"\n'
        f"[deployments.bench-{i:03d}.source_config]\n"
        f'integration_id = "{INTEGRATION}"\n'
        f'repo_url = "https://git.example.com/acme/bench-{i:03d}"\n'
        f"[deployments.bench-{i:03d}.source_revision_config]\n"
        f'repo_ref = "{ref}"\nagent_config_path = "agent.json"\n\n'
        for i in range(count)
    )


def requests_so_far(url: str) -> int:
    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(int(float(m.group(2))) for line in text.splitlines() if (m := REQUESTS.match(line)))


def machine() -> str:
    """The machine a benchmark ran on: cores, load, Python and the time (UTC)."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores, load {load}, Python {sys.version.split()[0]}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def step(text: str) -> None:
    """A progress line on stderr, with the time."""
    print(f"  {time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def measured(name: str, url: str, argv: list[str], cwd: Path, env: dict[str, str]) -> Row:
    """Run ARGV as a child; its wall time, the requests it made, its peak RSS."""
    before = requests_so_far(url)
    # files, not pipes: a pipe nobody reads during wait4 blocks a chatty child for good
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        started = time.monotonic()
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        out, err = stdout.read(), stderr.read()
    if process.returncode != 0:
        sys.exit(f"{name} failed ({process.returncode}):\n{out.decode()}\n{err.decode()}")
    found = SUMMARY_TIME.search(out.decode())
    engine = float(found.group(1)) if found else None
    cpu = usage.ru_utime + usage.ru_stime
    return Row(name, seconds, requests_so_far(url) - before, usage.ru_maxrss / 1024, engine, cpu)


def start_server(
    workdir: Path,
    latency_ms: float = 0.0,
    *,
    port: int = 0,
    db_name: str = "bench.db",
    extra: Sequence[str] = (),
) -> tuple[subprocess.Popen[str], str]:
    """`planner serve` on WORKDIR/DB_NAME (kept between runs when the caller keeps it),
    with EXTRA flags (e.g. a dialect)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planner",
            "serve",
            "--port",
            str(port),
            "--db",
            str(workdir / db_name),
            "--api-key",
            API_KEY,
            "--build-seconds",
            "1",
            "--deploy-seconds",
            "1",
            "--delete-seconds",
            "1",
            "--latency-ms",
            str(int(latency_ms)),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        sys.exit(f"planner serve did not start: {url!r}")
    return process, url


# --- the sequential baseline (run in a child process: `bench_apply.py _baseline ...`) ---


async def baseline(url: str, phase: str, count: int, ids_file: Path) -> None:
    from planner.api.client import ControlPlaneClient
    from planner.api.models import (
        DeploymentCreate,
        DeploymentPatch,
        SourceRevisionConfig,
        is_final_revision_status,
    )
    from planner.apply.waiter import PollPolicy

    policy = PollPolicy()  # the same pauses as apply's waits

    async def wait(client: ControlPlaneClient, deployment_id: str, revision_id: str) -> None:
        started = time.monotonic()
        while True:
            revision = await client.get_revision(deployment_id, revision_id)
            if is_final_revision_status(str(revision.status)):
                return
            await asyncio.sleep(policy.delay(time.monotonic() - started))

    async with ControlPlaneClient(url, API_KEY) as client:
        if phase == "create":
            ids = []
            for i in range(count):
                body = {
                    "name": f"base-{i:03d}",
                    "source": "git_host",
                    "source_config": {
                        "integration_id": INTEGRATION,
                        "repo_url": f"https://git.example.com/acme/base-{i:03d}",
                    },
                    "source_revision_config": {"repo_ref": "main", "agent_config_path": "a.json"},
                }
                created = await client.create_deployment(DeploymentCreate.model_validate(body))
                assert created.latest_revision_id is not None
                await wait(client, created.id, created.latest_revision_id)
                ids.append(created.id)
            ids_file.write_text(json.dumps(ids))
        elif phase == "revision":
            patch = DeploymentPatch(source_revision_config=SourceRevisionConfig(repo_ref="v2"))
            for deployment_id in json.loads(ids_file.read_text()):
                patched = await client.patch_deployment(deployment_id, patch)
                assert patched.latest_revision_id is not None
                await wait(client, deployment_id, patched.latest_revision_id)
        else:
            for deployment_id in json.loads(ids_file.read_text()):
                await client.delete_deployments([deployment_id])


def run_benchmark(count: int, baseline_count: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-apply-") as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(workdir / "state"),
        }
        config = workdir / "bench.toml"
        planner = [sys.executable, "-m", "planner"]
        try:
            config.write_text(config_text(count, "main"))
            apply = [*planner, "apply", "-c", str(config), "--auto-approve"]
            rows.append(measured(f"apply: create {count}", url, apply, workdir, env))
            config.write_text(config_text(count, "v2"))
            rows.append(measured(f"apply: new revision x{count}", url, apply, workdir, env))
            destroy = [*planner, "destroy", "-c", str(config), "--auto-approve"]
            rows.append(measured(f"destroy: delete {count}", url, destroy, workdir, env))
            me = [sys.executable, __file__, "_baseline", url, str(baseline_count)]
            ids = str(workdir / "ids.json")
            for phase, label in (
                ("create", "create"), ("revision", "new revision x"), ("delete", "delete"),
            ):  # fmt: skip
                name = f"sequential: {label.rstrip('x ')} {baseline_count}"
                rows.append(measured(name, url, [*me, phase, ids], workdir, env))
        finally:
            server.terminate()
            server.wait(timeout=10)
    return rows


def print_table(rows: list[Row]) -> None:
    print(f"{'phase':<30} {'process s':>9} {'apply s':>8} {'requests':>9} {'peak RSS MB':>12}")
    for row in rows:
        engine = f"{row.engine:.1f}" if row.engine is not None else "-"
        print(
            f"{row.name:<30} {row.seconds:>9.2f} {engine:>8} {row.requests:>9} {row.peak_mb:>12.1f}"
        )


# --- apply near the floor (`--scale`) ---------------------------------------------------

REVISION_SECONDS = 2.0  # build 1 s + deploy 1 s: the floor of any one deployment


@dataclass
class ScaleRow:
    """The runs of one phase at one parallelism (None: the default of `planner apply`)."""

    phase: str
    parallelism: int | None
    runs: list[Row]


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def scale_run(
    count: int, creates: int | None, revisions: int | None, latency_ms: float
) -> tuple[Row, Row | None]:
    """On a fresh server: COUNT creates at parallelism CREATES, then (unless REVISIONS is
    0) a new revision for each at parallelism REVISIONS (None: the default)."""
    with tempfile.TemporaryDirectory(prefix="bench-apply-") as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir, latency_ms)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(workdir / "state"),
        }
        config = workdir / "bench.toml"
        apply = [sys.executable, "-m", "planner", "apply", "-c", str(config), "--auto-approve"]
        try:
            config.write_text(config_text(count, "main"))
            flag = [] if creates is None else ["--parallelism", str(creates)]
            created = measured("create", url, [*apply, *flag], workdir, env)
            revised = None
            if revisions != 0:
                config.write_text(config_text(count, "v2"))
                flag = [] if revisions is None else ["--parallelism", str(revisions)]
                revised = measured("revision", url, [*apply, *flag], workdir, env)
        finally:
            server.terminate()
            server.wait(timeout=10)
    return created, revised


def run_scale(
    count: int, runs: int, creates: list[int | None], revisions: list[int | None], latency: float
) -> list[ScaleRow]:
    """Each parallelism of CREATES on its own server, followed by the revision phase at
    the parallelism in the same place of REVISIONS (if any); repeated RUNS times."""
    rows: dict[tuple[str, int | None], ScaleRow] = {}
    for _ in range(runs):
        for i, create_p in enumerate(creates):
            revision_p = revisions[i] if i < len(revisions) else 0
            created, revised = scale_run(count, create_p, revision_p, latency)
            rows.setdefault(("create", create_p), ScaleRow("create", create_p, [])).runs.append(
                created
            )
            if revised is not None:
                key = ("new revision", revision_p)
                rows.setdefault(key, ScaleRow("new revision", revision_p, [])).runs.append(revised)
            print(
                f"  done: create at {create_p or 'default'}, revision at {revision_p}",
                file=sys.stderr,
            )
    return list(rows.values())


def print_scale(rows: list[ScaleRow], count: int) -> None:
    """Medians; x = seconds / one revision's time (2 s)."""
    print(
        f"{'phase':<26} {'process s':>9} {'x':>6} {'apply s':>8} {'x':>6} "
        f"{'req/dep':>8} {'CPU s':>7} {'CPU ms/dep':>10} {'peak MB':>8}"
        f"  (median of {len(rows[0].runs)})"
    )
    for row in rows:
        wall = median([r.seconds for r in row.runs])
        engine = median([r.engine or r.seconds for r in row.runs])
        requests = median([float(r.requests) for r in row.runs]) / count
        cpu = median([r.cpu for r in row.runs])
        peak = median([r.peak_mb for r in row.runs])
        name = f"{count} {row.phase}s, p={row.parallelism or 'default'}"
        print(
            f"{name:<26} {wall:>9.2f} {wall / REVISION_SECONDS:>5.1f}x {engine:>8.2f} "
            f"{engine / REVISION_SECONDS:>5.1f}x {requests:>8.2f} {cpu:>7.2f} "
            f"{1000 * cpu / count:>10.2f} {peak:>8.1f}"
        )


def parallelisms(text: str) -> list[int | None]:
    return [None if item == "default" else int(item) for item in text.split(",") if item]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_baseline":
        url, count, phase, ids_file = sys.argv[2:6]
        asyncio.run(baseline(url, phase, int(count), Path(ids_file)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="deployments (default 100)")
    parser.add_argument(
        "--baseline-count", type=int, default=100, help="deployments in the sequential baseline"
    )
    parser.add_argument("--scale", action="store_true", help="apply near the floor (see above)")
    parser.add_argument("--runs", type=int, default=3, help="--scale: runs per row (median)")
    parser.add_argument("--create-parallelism", type=parallelisms, default="default,50,100")
    parser.add_argument("--revision-parallelism", type=parallelisms, default="10,50")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="the server's added latency")
    args = parser.parse_args()
    if args.scale:
        creates, revisions = args.create_parallelism, args.revision_parallelism
        print_scale(
            run_scale(args.count, args.runs, creates, revisions, args.latency_ms), args.count
        )
        return
    print_table(run_benchmark(args.count, args.baseline_count))


if __name__ == "__main__":
    main()
