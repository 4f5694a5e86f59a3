"""Benchmark the apply's state write path: client CPU and wall time of COUNT creates.

    python benchmarks/bench_apply_state.py [--count 1000] [--runs 1] [--parallelism N]

Starts `planner serve --build-seconds 1 --deploy-seconds 1` (as bench_apply.py does) and
runs `planner apply` creating COUNT git_host deployments into a fresh state file, RUNS
times (a new server and state each time). Per run: wall time of the process, its CPU
(user + system, from wait4), the apply's own time (its summary line), and what the state
directory holds afterwards (the state file's size; a `.journal` left would be a bug),
and its peak RSS (ru_maxrss).

To compare with another checkout (e.g. main before the operation log), put it first on
the path of the child processes: `PYTHONPATH=/tmp/main-src python benchmarks/...`
(`git archive main | tar -x -C /tmp/main-src`). Prints a table; not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_apply import API_KEY, SUMMARY_TIME, config_text, start_server


def one_run(count: int, parallelism: int | None) -> tuple[float, float, float | None, str, float]:
    """(wall s, CPU s, apply s, what the state directory holds, peak RSS MiB) of one
    create run."""
    with tempfile.TemporaryDirectory(prefix="bench-apply-state-") as tmp:
        workdir = Path(tmp)
        server, url = start_server(workdir)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": API_KEY,
            "PLANNER_STATE_DIR": str(workdir / "state"),
        }
        config = workdir / "bench.toml"
        config.write_text(config_text(count, "main"))
        argv = [sys.executable, "-m", "planner", "apply", "-c", str(config), "--auto-approve"]
        if parallelism is not None:
            argv += ["--parallelism", str(parallelism)]
        try:
            started = time.monotonic()
            with (workdir / "apply.out").open("wb") as sink:  # a pipe would fill up and block
                process = subprocess.Popen(argv, cwd=workdir, env=env, stdout=sink)
                _, status, usage = os.wait4(process.pid, 0)
            wall = time.monotonic() - started
            out = (workdir / "apply.out").read_text(encoding="utf-8")
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"apply failed:\n{out}")
        finally:
            server.terminate()
            server.wait(timeout=10)
        found = SUMMARY_TIME.search(out)
        files = sorted(
            f"{p.name} {p.stat().st_size // 1024} KiB"
            for p in (workdir / "state").iterdir()
            if p.suffix in (".json", ".journal")
        )
        engine = float(found.group(1)) if found else None
        peak = usage.ru_maxrss / 1024  # KiB on Linux
        return wall, usage.ru_utime + usage.ru_stime, engine, ", ".join(files), peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="deployments (default 1000)")
    parser.add_argument("--runs", type=int, default=1, help="runs; medians are printed")
    parser.add_argument("--parallelism", type=int, default=None, help="apply --parallelism")
    args = parser.parse_args()
    runs = [one_run(args.count, args.parallelism) for _ in range(args.runs)]
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    engines = [run[2] for run in runs if run[2] is not None]
    engine = f"{statistics.median(engines):.1f}" if engines else "-"
    peak = statistics.median(run[4] for run in runs)
    print(
        f"{'creates':>8} {'wall s':>8} {'CPU s':>8} {'apply s':>8} {'CPU ms/create':>14} "
        f"{'peak RSS MiB':>13}  state"
    )
    per = cpu * 1000 / args.count
    print(
        f"{args.count:>8} {wall:>8.2f} {cpu:>8.2f} {engine:>8} {per:>14.2f} {peak:>13.0f}  "
        f"{runs[-1][3]}"
    )


if __name__ == "__main__":
    main()
