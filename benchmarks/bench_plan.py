"""Benchmark the requests of a health-aware `planner plan` over many deployments (prints a
table; not a test).

    python benchmarks/bench_plan.py [--count 1000] [--failed 5]

Starts `planner serve` (0.05 s builds and deploys) on a free port with a fresh database,
creates COUNT internal_docker deployments with `planner apply`, then measures, each as its
own process, the requests the server counted (`controlplane_requests_total` on `/v2/...`
routes, from `GET /metrics`) for:
- `planner plan --detailed-exitcode` with nothing to change (expected: the one paged
  listing of the workspace, `ceil((COUNT + 1)/100)` requests, and exit 0);
- the same after FAILED of them got a failing revision outside the planner and
  `planner apply --refresh-only` recorded it (expected: FAILED more requests, one revision
  read each, and exit 2: each is planned as a new revision).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_apply import API_KEY, requests_so_far

SERVE_ARGS = ["--build-seconds", "0.05", "--deploy-seconds", "0.05", "--delete-seconds", "0.05"]


def config_text(count: int) -> str:
    return "".join(
        f'[deployments.svc-{i:04d}]\nsource = "internal_docker"\n'
        f"[deployments.svc-{i:04d}.source_revision_config]\n"
        f'image_uri = "registry.example.com/acme/svc-{i:04d}:1"\n\n'
        for i in range(count)
    )


def run(argv: list[str], cwd: Path, env: dict[str, str], expect: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "planner", *argv], cwd=cwd, env=env, capture_output=True, text=True
    )
    if done.returncode != expect:
        sys.exit(f"{argv} exited {done.returncode}, not {expect}:\n{done.stdout}\n{done.stderr}")


def counted(url: str, argv: list[str], cwd: Path, env: dict[str, str], expect: int) -> int:
    """The requests the server answered while ARGV ran (it must exit EXPECT)."""
    before = requests_so_far(url)
    run(argv, cwd, env, expect)
    return requests_so_far(url) - before


def fail_outside(url: str, count: int) -> None:
    """Give COUNT deployments a revision that fails (as someone would by hand)."""
    import asyncio

    from planner.api.client import ControlPlaneClient
    from planner.api.models import DeploymentPatch

    async def go() -> None:
        async with ControlPlaneClient(url, API_KEY) as client:
            for i in range(count):
                found = await client.find_by_name(f"svc-{i:04d}")
                assert found is not None
                patch = {"source_revision_config": {"image_uri": f"img:{i}-fail-deploy"}}
                await client.patch_deployment(found.id, DeploymentPatch.model_validate(patch))

    asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--failed", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        server = subprocess.Popen(
            [sys.executable, "-m", "planner", "serve", "--port", "0", "--db",
             str(workdir / "bench.db"), "--api-key", API_KEY, *SERVE_ARGS],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(workdir / "state"),
        }
        try:
            (workdir / "planner.toml").write_text(config_text(args.count), encoding="utf-8")
            run(["apply", "--auto-approve", "--parallelism", "50"], workdir, env, 0)
            time.sleep(1)
            plan = ["plan", "--detailed-exitcode"]
            healthy = counted(url, plan, workdir, env, 0)
            fail_outside(url, args.failed)
            run(["apply", "--refresh-only", "--auto-approve"], workdir, env, 0)
            time.sleep(1)
            failing = counted(url, plan, workdir, env, 2)
        finally:
            server.terminate()
            server.wait(10)
    pages = math.ceil((args.count + 1) / 100)
    print(f"| plan over {args.count} deployments | requests | expected |")
    print("|---|---|---|")
    print(f"| no changes (exit 0) | {healthy} | {pages} list pages |")
    print(f"| {args.failed} failed revisions (exit 2) | {failing} | {pages} + {args.failed} |")


if __name__ == "__main__":
    main()
