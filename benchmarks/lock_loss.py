"""Lock-loss runs: an apply whose PostgreSQL lock connection is killed mid-way, beside a
second apply waiting for the lock, against `planner serve` on loopback.

    python benchmarks/lock_loss.py [--runs 5] [--count 30] [--url postgresql://...]

Per run: a fresh state; apply 1 (`--lock-lease 1.5`) starts; once it is creating, its
lock connection is terminated (`pg_terminate_backend`, as a restart or an idle timeout
would) and apply 2 (`--lock-timeout 60`) starts. Then a plan counts the deployments
whose server value differs from what the state records (its `drift`), and the ones it
would still create or change. Prints one line per run and the totals; not a test.
The URL defaults to $PLANNER_TEST_POSTGRES_URL (`eval "$(scripts/postgres-up)"`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

API_KEY = "lock-loss-bench-key"
SERVE = ["--latency-ms", "100", "--build-seconds", "0.2", "--deploy-seconds", "0.3"]


def config(count: int, name: str) -> str:
    """COUNT deployments named after the state NAME (each run its own on one server)."""
    body = "".join(
        f'[deployments.{name}-{i}]\nsource = "internal_docker"\n'
        f"[deployments.{name}-{i}.source_revision_config]\n"
        'image_uri = "registry.example.com/a:1"\n\n'
        for i in range(count)
    )
    return body + f'[state]\nname = "{name}"\n'


def start_serve(root: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "planner", "serve", "--port", "0", "--db"]
    command += [str(root / "serve.db"), "--api-key", API_KEY, *SERVE]
    process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:  # a banner first, then the URL
        if line.startswith("http://"):
            return process, line.strip()
    raise SystemExit("planner serve did not start")


def planner(url: str, state: str, root: Path, *argv: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    env |= {"PLANNER_BASE_URL": url, "PLANNER_API_KEY": API_KEY, "PLANNER_STATE": state}
    return subprocess.Popen(
        [sys.executable, "-m", "planner", *argv, "-c", "loss.toml"],
        cwd=root,
        env=env | {"NO_COLOR": "1", "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def terminate_lock(state: str, name: str) -> None:
    statement = (
        "SELECT pg_terminate_backend(l.backend_pid) FROM planner.locks l "
        "JOIN planner.states s ON s.id = l.state_id WHERE s.name = %s"
    )
    deadline = time.monotonic() + 60
    with psycopg.connect(state, autocommit=True) as conn:
        while conn.execute(statement, (name,)).fetchone() != (True,):
            if time.monotonic() > deadline:
                raise SystemExit("no lock holder to terminate")
            time.sleep(0.02)


def one_run(url: str, state: str, root: Path, count: int) -> dict[str, int]:
    name = f"loss-{uuid.uuid4().hex[:8]}"
    (root / "loss.toml").write_text(config(count, name), encoding="utf-8")
    first = planner(url, state, root, "apply", "--auto-approve", "--lock-lease", "1.5")
    assert first.stdout is not None
    for line in first.stdout:
        if "creating" in line or "created" in line:
            break
    else:
        raise SystemExit(f"apply 1 ended before it created anything: {first.communicate()}")
    terminate_lock(state, name)
    second = planner(url, state, root, "apply", "--auto-approve", "--lock-timeout", "60")
    first_out, first_err = first.communicate()
    second.communicate()
    out, _ = planner(url, state, root, "plan", "--format", "json").communicate()
    plan = json.loads(out)
    return {
        "first_exit": first.returncode,
        "first_named_the_loss": int("the state lock was lost" in first_out + first_err),
        "second_exit": second.returncode,
        "differs_from_state": len({d["name"] for d in plan["drift"]}),
        "still_to_change": sum(c["action"] != "no_op" for c in plan["changes"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--url", default=os.environ.get("PLANNER_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    if not args.url:
        sys.exit("no PostgreSQL URL: pass --url or set PLANNER_TEST_POSTGRES_URL")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        serve, url = start_serve(root)
        try:
            runs = []
            for index in range(args.runs):
                runs.append(one_run(url, args.url, root, args.count))
                line = ", ".join(f"{k}={v}" for k, v in runs[-1].items())
                print(f"run {index + 1}: {line}", flush=True)
        finally:
            serve.kill()
            serve.communicate()
    total = sum(run["differs_from_state"] for run in runs)
    print(
        f"{args.runs} runs of {args.count}: {total} deployment(s) whose server value "
        "differs from the state"
    )


if __name__ == "__main__":
    main()
