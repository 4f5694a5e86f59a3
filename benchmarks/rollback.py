"""Benchmark `planner rollback` of one deployment against `planner serve` (prints numbers;
not a test).

    python benchmarks/rollback.py [--runs 5] [--dialect seed|service]

Starts `planner serve --deploy-seconds 1` (an image deployment: its revisions skip the
build, so a rollout is the 1 s deploy) on a free port with a fresh database, applies the
deployment twice (a good release, then a bad one), then times, each as its own process
(Python start-up included, as a person or a CI job runs it):

- `planner rollback NAME --auto-approve`: plan the rollback, journal, redeploy, record
  the hold, wait for the revision to be DEPLOYED;
- `planner rollback NAME --auto-approve --no-wait`: the same without the wait;
- `planner release NAME`.

Between runs the deployment is released and applied again (so each rollback starts from
the bad release). Reports the median and the worst of `--runs` wall times, and for the
waited rollback its time beyond the rollout (the target: under 2 s plus the rollout).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

API_KEY = "bench-key"
ROLLOUT_SECONDS = 1.0
CONFIG = """[control_plane]
base_url = "{url}"

[deployments.worker]
source = "internal_docker"

[deployments.worker.source_revision_config]
image_uri = "registry.example.com/acme/worker:{tag}"
"""


def start_server(workdir: Path, dialect: str) -> tuple[subprocess.Popen[str], str]:
    """`planner serve --deploy-seconds 1` on a fresh database; the process and its URL."""
    command = [
        sys.executable, "-m", "planner", "serve", "--port", "0", "--db", str(workdir / "bench.db"),
        "--api-key", API_KEY, "--deploy-seconds", str(ROLLOUT_SECONDS), "--dialect", dialect,
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
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


def planner(workdir: Path, *argv: str) -> float:
    """Run `planner ARGV...` in WORKDIR (it must succeed); its wall time in seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "planner", *argv],
        cwd=workdir,
        capture_output=True,
        text=True,
        env={**os.environ, "PLANNER_API_KEY": API_KEY},
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(
            f"planner {' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return seconds


def release_bad(workdir: Path, url: str, tag: str) -> None:
    """Apply the deployment at TAG (a new revision, waited for)."""
    (workdir / "planner.toml").write_text(CONFIG.format(url=url, tag=tag), encoding="utf-8")
    planner(workdir, "apply", "--auto-approve")


def measure(workdir: Path, url: str, runs: int) -> dict[str, list[float]]:
    """The wall times of each command, run RUNS times from the bad release."""
    times: dict[str, list[float]] = {"rollback": [], "rollback --no-wait": [], "release": []}
    release_bad(workdir, url, "1.0.0")
    for run in range(runs):
        for flags in ((), ("--no-wait",)):
            release_bad(workdir, url, f"2.0.{run}{len(flags)}")  # a new bad release
            name = "rollback" + "".join(f" {flag}" for flag in flags)
            times[name].append(planner(workdir, "rollback", "worker", "--auto-approve", *flags))
            if flags:  # the same command again waits for the revision --no-wait left
                planner(workdir, "rollback", "worker", "--auto-approve")
            times["release"].append(planner(workdir, "release", "worker"))
    return times


def report(times: dict[str, list[float]]) -> list[str]:
    lines = [f"{'command':<22} {'median':>8} {'worst':>8}"]
    for name, seconds in times.items():
        lines.append(f"{name:<22} {statistics.median(seconds):>7.2f}s {max(seconds):>7.2f}s")
    beyond = statistics.median(times["rollback"]) - ROLLOUT_SECONDS
    verdict = "met" if beyond < 2.0 else "MISSED"
    lines.append(
        f"rollback beyond the {ROLLOUT_SECONDS:g} s rollout: {beyond:.2f}s "
        f"(target under 2 s: {verdict})"
    )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dialect", choices=["seed", "service"], default="seed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir, args.dialect)
        try:
            times = measure(workdir, url, args.runs)
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"planner rollback of one deployment, planner serve --deploy-seconds 1 ({args.dialect})")
    print("\n".join(report(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
