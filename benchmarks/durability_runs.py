"""Durability runs: short journal writes and control plane restarts (prints figures; not a test).

    python benchmarks/durability_runs.py --short-write 20 [--count 30]
    python benchmarks/durability_runs.py --outage 10 [--count 20]

Each run starts `planner serve` on loopback with a fresh database and a config of COUNT
deployments.
- `--short-write RUNS`: `planner apply` under `ulimit -f` (a random limit of 2-12 KB,
  SIGXFSZ ignored: the path a full disk takes), then `planner apply` without it. Counts
  the orphans (deployments on the server that the state does not record after the
  second apply) and the duplicates (names made twice).
- `--outage RUNS`: `planner apply` while the server is killed (0-0.3 s after the first
  `creating`, then the first `updating` line of a new image) and started again on the
  same port and database 2-5 s later. Counts the failed deployments of those applies and
  their exit codes (-1 failed: no summary line).
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner.state import LocalFileBackend
from tests.cli.apply.test_apply_loopback import API_KEY, Workdir, config_text
from tests.controlplane.conftest import start_serve

SERVE = ("--latency-ms", "30", "--build-seconds", "0.3", "--deploy-seconds", "0.3")


def workdir(root: Path) -> Workdir:
    server = start_serve(["--db", str(root / "serve.db"), "--api-key", API_KEY, *SERVE], root)
    return Workdir(root, server)


def limited_apply(work: Workdir, config: str, limit: int) -> int:
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    done = subprocess.run(
        [sys.executable, "-m", "planner", "apply", "-c", config, "--auto-approve"],
        cwd=work.root, env=work.env(), capture_output=True, text=True,
        preexec_fn=limit_files, check=False,
    )  # fmt: skip
    return done.returncode


def short_write_run(root: Path, count: int, rng: random.Random) -> tuple[int, int, int, int]:
    """(limit, first exit code, orphans, duplicates)."""
    work = workdir(root)
    try:
        config = work.write("short.toml", config_text("s", count))
        limit = rng.randint(2000, 12000)
        first = limited_apply(work, config, limit)
        code, out, err = work.run("apply", "-c", config, "--auto-approve")
        assert code == 0, out + err
        live = work.live("s")
        state = LocalFileBackend(root / "state" / "short.state.json").read()
        recorded = {r.id for r in state.deployments.values()} if state else set()
        orphans = sum(1 for d in live if d.id not in recorded)
        duplicates = sum(n - 1 for n in Counter(d.name for d in live).values())
        return limit, first, orphans, duplicates
    finally:
        work.server.stop()


def restarted_apply(
    work: Workdir, config: str, stage: str, rng: random.Random
) -> tuple[int, int, float]:
    """Apply while the server restarts once it is STAGE (creating, updating) deployments:
    (exit code, failed deployments, seconds down)."""
    apply = work.start("apply", "-c", config, "--auto-approve", "--parallelism", "2")
    apply.wait_for(stage)
    time.sleep(rng.uniform(0.0, 0.3))
    work.server.process.send_signal(signal.SIGKILL)
    work.server.process.communicate(timeout=10)
    down = rng.uniform(2.0, 5.0)
    time.sleep(down)
    port = str(urlsplit(work.server.url).port)
    args = ["--db", str(work.root / "serve.db"), "--api-key", API_KEY, *SERVE, "--port", port]
    work.server = start_serve(args, work.root)
    code, out, _ = apply.finish(timeout=180)
    failed = re.search(r"(\d+) failed \(", out)
    return code, int(failed.group(1)) if failed else -1, down


def outage_run(root: Path, count: int, rng: random.Random) -> list[tuple[int, int, float]]:
    work = workdir(root)
    try:
        config = work.write("outage.toml", config_text("o", count))
        creates = restarted_apply(work, config, "creating", rng)
        work.write(config, config_text("o", count, image="registry.example.com/app:2"))
        patches = restarted_apply(work, config, "updating", rng)
        work.assert_converged(config, "o", count)
        return [creates, patches]
    finally:
        work.server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short-write", type=int, default=0, metavar="RUNS")
    parser.add_argument("--outage", type=int, default=0, metavar="RUNS")
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals = Counter[str]()
    for run in range(args.short_write):
        with tempfile.TemporaryDirectory() as tmp:
            limit, first, orphans, duplicates = short_write_run(Path(tmp), args.count, rng)
        print(f"short-write {run + 1}: limit {limit} B, exit {first}, "
              f"{orphans} orphans, {duplicates} duplicates", flush=True)  # fmt: skip
        totals.update(short_runs=1, orphans=orphans, duplicates=duplicates, stopped=first == 1)
    for run in range(args.outage):
        with tempfile.TemporaryDirectory() as tmp:
            applies = outage_run(Path(tmp), args.count, rng)
        for phase, (code, failed, down) in zip(("creates", "patches"), applies, strict=True):
            print(f"outage {run + 1} {phase}: down {down:.1f} s, exit {code}, {failed} failed",
                  flush=True)  # fmt: skip
            totals.update(outage_applies=1, failed=failed, nonzero=code != 0)
    print(dict(totals))


if __name__ == "__main__":
    main()
