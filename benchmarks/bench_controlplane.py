"""Benchmark the local control plane in-process (prints a table; not a test).

    python benchmarks/bench_controlplane.py [--count 30000] [--creates 1000] [--parallel 10]
        [--baseline DIR]   # the same run on another checkout's planner/, side by side

Seeds COUNT git_host deployments (each with its revision and tracing project) straight
through the store in one transaction into a fresh database, then measures through the
ASGI app (`httpx2.ASGITransport`, the embedded key):
- list pages of 100, REPEATS runs each: the fastest wall time and the median CPU time
  (client and app share this process; CPU is the steadier number on a shared machine):
  the first page, a deep page (the last one), the `deployment_ids` filter with 100 ids
  spread over the table, an exact-name lookup (`name_contains` = one whole name, as the
  planner looks names up), and the wall time of a full listing (offset paging);
- CREATES new deployments through `POST /v2/deployments`, PARALLEL in flight: creates/s,
  CPU per create (client, app and SQLite together) and what one core could do at that CPU;
- the same creates sent straight into the ASGI app (no HTTP client): the server's share;
- the same creates through the service alone (`Deployments.create`, no HTTP): the store's;
- then CREATES more against `planner serve` on the same file over loopback HTTP: creates/s
  and the server process's CPU per create (from /proc), what the issue calls the floor.
`--baseline DIR` runs this file again with `PYTHONPATH=DIR` (e.g. `git worktree add DIR
main`, or `git archive main planner | tar -x -C DIR`) and prints both columns.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import httpx2

from planner.api.models import DeploymentCreate
from planner.controlplane.app import create_app
from planner.controlplane.rows import DeploymentRow, RevisionRow, TracingProjectRow
from planner.controlplane.service import Deployments
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from planner.controlplane.store import Store

INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
PAGE = 100


def body(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "source": "git_host",
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": f"https://git.example.com/acme/{name}",
        },
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
        "secrets": [{"name": "LOG_LEVEL", "value": "info"}],
    }


def seed(store: Store, count: int, now: float) -> list[str]:
    """COUNT deployments in one transaction (as created one second apart); their ids."""
    ids = []
    with store.transaction() as tx:
        for n in range(count):
            at = now - count + n
            row = seed_row(f"seed-{n:06d}", at)
            tx.insert_deployment(row)
            tx.insert_revision(seed_revision(row, at))
            tx.insert_tracing_project(
                TracingProjectRow(str(uuid.uuid4()), DEFAULT_TENANT_ID, row.id, row.name, at)
            )
            ids.append(row.id)
    return ids


def seed_row(name: str, at: float) -> DeploymentRow:
    wire = body(name)
    return DeploymentRow(
        id=str(uuid.uuid4()),
        tenant_id=DEFAULT_TENANT_ID,
        name=name,
        source="git_host",
        source_config={**wire["source_config"], "deployment_type": "prod"},
        source_revision_config=wire["source_revision_config"],
        secrets=wire["secrets"],
        secret_references=[],
        image_version="0",
        latest_revision_id=str(uuid.uuid4()),
        created_at=at,
        updated_at=at,
        ready_at=at,
    )


def seed_revision(row: DeploymentRow, at: float) -> RevisionRow:
    config = {**row.source_revision_config, "repo_commit_sha": "0" * 40}
    assert row.latest_revision_id is not None
    return RevisionRow(row.latest_revision_id, row.id, 1, "git_host", config, at, 1.0, 1.0)


async def bounded(calls: Sequence[Callable[[], Awaitable[Any]]], parallel: int) -> None:
    limiter = asyncio.Semaphore(parallel)

    async def run(call: Callable[[], Awaitable[Any]]) -> None:
        async with limiter:
            await call()

    await asyncio.gather(*(run(call) for call in calls))


async def measure_creates(
    client: httpx2.AsyncClient, count: int, parallel: int, prefix: str = "new"
) -> list[float]:
    """[creates/s, CPU ms per create of this process] through `client`."""

    async def create(n: int) -> None:
        response = await client.post("/v2/deployments", json=body(f"{prefix}-{n:06d}"))
        assert response.status_code == 201, response.text

    calls = [partial(create, n) for n in range(count)]
    wall, cpu = time.perf_counter(), time.process_time()
    await bounded(calls, parallel)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return [count / wall, 1000 * cpu / count]


async def asgi_post(app: Any, path: str, payload: bytes) -> int:
    """One POST straight into the ASGI app (no HTTP client): its status."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"cp.test"),
            (b"x-api-key", EMBEDDED_API_KEY.encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("cp.test", 80),
    }
    messages = [{"type": "http.request", "body": payload, "more_body": False}]
    status = 0

    async def receive() -> dict[str, Any]:
        return messages.pop() if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


async def measure_app_creates(app: Any, count: int, parallel: int) -> list[float]:
    """[creates/s, CPU ms per create] into the ASGI app alone (the server's share)."""

    async def create(n: int) -> None:
        status = await asgi_post(app, "/v2/deployments", json.dumps(body(f"app-{n:06d}")).encode())
        assert status == 201, status

    calls = [partial(create, n) for n in range(count)]
    wall, cpu = time.perf_counter(), time.process_time()
    await bounded(calls, parallel)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return [count / wall, 1000 * cpu / count]


def start_serve(db: Path) -> tuple[subprocess.Popen[str], str]:
    """`planner serve` on a free loopback port over `db`; its process and base URL."""
    argv = [sys.executable, "-m", "planner", "serve", "--port", "0", "--db", str(db)]
    argv += ["--api-key", EMBEDDED_API_KEY, "--build-seconds", "1", "--deploy-seconds", "1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        sys.exit(f"planner serve did not start: {url!r}")
    return process, url


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_loopback_creates(db: Path, count: int, parallel: int) -> list[float]:
    """[creates/s, server CPU ms per create] against `planner serve` over loopback HTTP."""
    server, url = start_serve(db)
    try:
        headers = {"X-Api-Key": EMBEDDED_API_KEY}
        limits = httpx2.Limits(max_connections=parallel)
        async with httpx2.AsyncClient(base_url=url, headers=headers, limits=limits) as client:
            await measure_creates(client, 10, parallel, "warm")
            before = cpu_seconds(server.pid)
            rate, _ = await measure_creates(client, count, parallel, "http")
            cpu = cpu_seconds(server.pid) - before
    finally:
        server.terminate()
        server.wait(timeout=10)
    return [rate, 1000 * cpu / count]


def measure_service_creates(settings: ServerSettings, store: Store, count: int) -> list[float]:
    """[creates/s, CPU ms per create] through `Deployments.create`, one at a time."""
    service = Deployments(store, settings, DEFAULT_TENANT_ID)
    bodies = [DeploymentCreate.model_validate(body(f"svc-{n:06d}")) for n in range(count)]
    wall, cpu = time.perf_counter(), time.process_time()
    for item in bodies:
        service.create(item)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return [count / wall, 1000 * cpu / count]


async def page_ms(client: httpx2.AsyncClient, params: Any, repeats: int) -> str:
    """Fastest wall milliseconds of one list request, and median CPU milliseconds."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        response = await client.get("/v2/deployments", params=params)
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
        assert response.status_code == 200 and response.json()["resources"], response.text
    return f"{min(walls):.2f} ms / {statistics.median(cpus):.2f} ms"


async def full_listing_s(client: httpx2.AsyncClient) -> float:
    start, offset = time.perf_counter(), 0
    while True:
        page = await client.get("/v2/deployments", params={"limit": PAGE, "offset": offset})
        found = page.json()
        if not found["resources"]:
            return time.perf_counter() - start
        offset = found["offset"]


async def run(count: int, creates: int, parallel: int, repeats: int) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = ServerSettings(db_path=Path(tmp) / "cp.db", build_seconds=1, deploy_seconds=1)
        app = create_app(settings)
        store: Store = app.state.store
        start = time.perf_counter()
        ids = seed(store, count, settings.clock())
        rows = [("seeded deployments", f"{count} in {time.perf_counter() - start:.1f} s")]
        transport = httpx2.ASGITransport(app=app)
        headers = {"X-Api-Key": EMBEDDED_API_KEY}
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://cp.test", headers=headers
        ) as client:
            rows += await list_rows(client, ids, count, repeats)
            rate, cpu = await measure_creates(client, creates, parallel)
            rows += [
                (f"creates/s via ASGI app (parallel {parallel})", f"{rate:.0f}"),
                ("creates/s on one core via ASGI app (1000 / CPU ms)", f"{1000 / cpu:.0f}"),
                ("CPU per create via ASGI app (client + app)", f"{cpu:.2f} ms"),
            ]
        rate, cpu = await measure_app_creates(app, creates, parallel)
        rows += [
            (f"creates/s into the app alone (parallel {parallel})", f"{rate:.0f}"),
            ("CPU per create, app alone (no HTTP client)", f"{cpu:.2f} ms"),
        ]
        rate, cpu = measure_service_creates(settings, store, creates)
        rows += [
            ("creates/s via service (no HTTP)", f"{rate:.0f}"),
            ("CPU per create via service (no HTTP)", f"{cpu:.2f} ms"),
        ]
        store.close()
        rate, cpu = await measure_loopback_creates(settings.db_path, creates, parallel)
        rows += [
            (f"creates/s over loopback to planner serve (parallel {parallel})", f"{rate:.0f}"),
            ("server CPU per create over loopback", f"{cpu:.2f} ms"),
            ("creates/s on one core for the server (1000 / CPU ms)", f"{1000 / cpu:.0f}"),
        ]
    return rows


async def list_rows(
    client: httpx2.AsyncClient, ids: list[str], count: int, repeats: int
) -> list[tuple[str, str]]:
    spread = ids[:: max(1, len(ids) // PAGE)][:PAGE]
    last = max(0, (count - 1) // PAGE * PAGE)
    shapes: list[tuple[str, Any]] = [
        ("list page: first (offset 0)", {"limit": PAGE}),
        (f"list page: deep (offset {last})", {"limit": PAGE, "offset": last}),
        (
            f"list page: deployment_ids ({len(spread)} ids)",
            [("limit", PAGE), ("deployment_ids", ",".join(spread))],
        ),
        ("list page: name lookup (name_contains)", {"name_contains": f"seed-{count // 2:06d}"}),
    ]
    rows = [(label, await page_ms(client, params, repeats)) for label, params in shapes]
    rows.append(
        (f"full listing ({-(-count // PAGE)} pages)", f"{await full_listing_s(client):.2f} s")
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=30_000, help="deployments seeded")
    parser.add_argument("--creates", type=int, default=1_000, help="creates measured")
    parser.add_argument("--parallel", type=int, default=10, help="creates in flight")
    parser.add_argument("--repeats", type=int, default=7, help="runs per list page")
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = asyncio.run(run(args.count, args.creates, args.parallel, args.repeats))
    if args.json:
        print(json.dumps(rows))
        return
    columns = [("this checkout", dict(rows))]
    if args.baseline:
        columns.insert(0, ("baseline", baseline_rows(args.baseline)))
    print_table([label for label, _ in rows], columns)


def baseline_rows(checkout: Path) -> dict[str, str]:
    """The same benchmark on `checkout`'s planner package, in its own process."""
    flags = [a for a in sys.argv[1:] if not a.startswith("--baseline")]
    if "--baseline" in sys.argv:
        at = sys.argv.index("--baseline")
        flags = sys.argv[1:at] + sys.argv[at + 2 :]
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    done = subprocess.run(
        [sys.executable, __file__, *flags, "--json"],
        env=env,
        cwd=tempfile.gettempdir(),  # not this checkout: its planner/ would win the import
        check=True,
        capture_output=True,
        text=True,
    )
    return {label: value for label, value in json.loads(done.stdout)}


def print_table(labels: list[str], columns: list[tuple[str, dict[str, str]]]) -> None:
    width = max(len(label) for label in labels)
    print(f"{'':<{width}}" + "".join(f"  {name:>24}" for name, _ in columns))
    for label in labels:
        cells = "".join(f"  {values.get(label, '-'):>24}" for _, values in columns)
        print(f"{label:<{width}}{cells}")
    print(f"(list pages: fastest wall / median CPU; Python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
