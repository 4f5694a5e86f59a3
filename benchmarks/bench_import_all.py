"""Benchmark `planner import --all` against `planner serve` on loopback (prints numbers; not
a test).

    python benchmarks/bench_import_all.py [--count 50]

Starts `planner serve` on a free port with a fresh database, creates COUNT deployments of
mixed sources through the API (git_host, internal_docker, internal_source; resource
specs, labels, and secrets on a third of them, two of which differ per deployment), then,
each as its own process in an empty directory with PLANNER_BASE_URL/PLANNER_TENANT_ID set:
- `planner import --all --auto-approve --generate-config planner.toml`;
- `planner plan --detailed-exitcode` (expected: exit 0, no changes).
Per step: wall time of the process (Python start-up included), its exit code, and the
requests the server counted (`controlplane_requests_total` on `/v2/...` routes).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

API_KEY = "bench-key"
TENANT = "00000000-0000-4000-8000-000000000001"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
SERVE = [sys.executable, "-m", "planner", "serve", "--port", "0", "--build-seconds", "0.05"]
REQUESTS = re.compile(r'^controlplane_requests_total\{[^}]*route="(/v2[^"]*)"[^}]*\} (\S+)$')


def body(i: int) -> dict[str, Any]:
    """Deployment I: its source cycles through three; every third has secrets."""
    name = f"agent-{i:03d}"
    spec = {"cpu": 0.5, "memory_mb": 512, "max_scale": 1 + i % 4, "labels": {"team": "t"}}
    kinds: list[dict[str, Any]] = [
        {
            "source": "git_host",
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": f"https://git.example.com/acme/{name}",
                "build_on_push": False,
                "resource_spec": spec,
            },
            "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
        },
        {
            "source": "internal_docker",
            "source_config": {"resource_spec": spec},
            "source_revision_config": {"image_uri": f"registry.example.com/acme/{name}:1.0"},
        },
        {
            "source": "internal_source",
            "source_config": {"resource_spec": spec},
            "source_revision_config": {
                "source_tarball_path": f"tarballs/{name}.tgz",
                "agent_config_path": "agent.json",
            },
        },
    ]
    secrets = []
    if i % 3 == 0:
        secrets = [
            {"name": "SHARED_TOKEN", "value": "shared-value"},
            {"name": "OWN_KEY", "value": f"own-{i}"},
        ]
    return {"name": name, **kinds[i % 3], "secrets": secrets}


def v2_requests(url: str) -> int:
    text = httpx2.get(f"{url}/metrics").text
    return sum(int(float(m.group(2))) for m in map(REQUESTS.match, text.splitlines()) if m)


def timed(command: list[str], cwd: Path, env: dict[str, str], url: str) -> tuple[float, int, int]:
    before = v2_requests(url)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode not in (0,):
        print(result.stdout[-2000:], result.stderr[-2000:], file=sys.stderr)
    return seconds, result.returncode, v2_requests(url) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    count = parser.parse_args().count
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        serve = subprocess.Popen(
            [*SERVE, "--db", str(root / "cp.db"), "--api-key", API_KEY],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert serve.stdout is not None
            url = serve.stdout.readline().strip()
            headers = {"X-Api-Key": API_KEY, "X-Tenant-Id": TENANT}
            with httpx2.Client(base_url=url, headers=headers) as client:
                for i in range(count):
                    client.post("/v2/deployments", json=body(i)).raise_for_status()
            work = root / "empty"
            work.mkdir()
            keep = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
            env = {
                **keep,
                "PLANNER_BASE_URL": url,
                "PLANNER_TENANT_ID": TENANT,
                "PLANNER_API_KEY": API_KEY,
                "SHARED_TOKEN": "shared-value",
                **{f"AGENT_{i:03d}_OWN_KEY": f"own-{i}" for i in range(0, count, 3)},
            }
            planner = [sys.executable, "-m", "planner"]
            steps = [
                (
                    "import --all",
                    [
                        *planner,
                        "import",
                        "--all",
                        "--auto-approve",
                        "--generate-config",
                        "planner.toml",
                    ],
                ),
                ("plan --detailed-exitcode", [*planner, "plan", "--detailed-exitcode"]),
            ]
            print(f"{count} deployments (git_host, internal_docker, internal_source), {url}")
            print(f"{'step':28} {'seconds':>8} {'exit':>5} {'requests':>9}")
            for name, command in steps:
                seconds, code, requests = timed(command, work, env, url)
                print(f"{name:28} {seconds:8.2f} {code:5d} {requests:9d}")
            lines = (work / "planner.toml").read_text().count("\n")
            print(f"planner.toml: {lines} lines")
        finally:
            serve.terminate()
            serve.wait(timeout=10)


if __name__ == "__main__":
    main()
