"""Benchmark state reads and writes of a 1,000-deployment state: file vs PostgreSQL.

    python benchmarks/bench_state.py [--count 1000] [--rounds 30] [--url postgresql://...]

The PostgreSQL URL defaults to $PLANNER_TEST_POSTGRES_URL (`eval "$(scripts/postgres-up)"`);
a schema of its own is made and dropped. Per backend, after one warm-up write:
- read: `backend.read()` (fetch, verify the checksum, validate the document);
- write: `backend.write(doc)` of the changed document (a new version each time);
- lock: `backend.lock("bench")` then release.
Median and 95th percentile in milliseconds, over ROUNDS runs each. Prints a table; not a
test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from planner.secrets import digest_key, redact_url, secret_digest
from planner.state import LocalFileBackend, RecordedDeployment, StateBackend, StateDocument


def big_state(count: int) -> StateDocument:
    doc = StateDocument.new("http://127.0.0.1:8123", str(uuid.uuid4()))
    key = digest_key("bench-key", doc.lineage)
    for index in range(count):
        doc.record(
            RecordedDeployment(
                name=f"agent-{index:04d}",
                id=str(uuid.uuid4()),
                managed={
                    "source": "git_host",
                    "source_config": {
                        "integration_id": "9a0e7c55-0000-4000-8000-00000000a001",
                        "repo_url": f"https://git.example.com/acme/agent-{index}",
                        "build_on_push": False,
                        "resource_spec": {"cpu": 1, "memory_mb": 1024, "max_scale": 3},
                    },
                    "source_revision_config": {"repo_ref": "main", "agent_config_path": "a.json"},
                },
                secret_digests={"API_KEY": secret_digest(key, "API_KEY", f"value-{index}")},
                latest_revision_id=str(uuid.uuid4()),
                updated_at="2026-11-23T10:00:00Z",
            )
        )
    return doc


def timed(action: Callable[[], object], rounds: int) -> tuple[float, float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def measure(
    backend: StateBackend, doc: StateDocument, rounds: int
) -> list[tuple[str, float, float]]:
    backend.write(doc)

    def write() -> None:
        doc.deployments["agent-0000"].updated_at = f"2026-11-23T10:00:{len(doc.pending):02d}Z"
        backend.write(doc)

    def lock() -> None:
        backend.lock("bench").release()

    return [
        ("read", *timed(backend.read, rounds)),
        ("write", *timed(write, rounds)),
        ("lock + release", *timed(lock, rounds)),
    ]


def postgres_backend(url: str, schema: str) -> StateBackend:
    from planner.state.postgres import PostgresBackend

    return PostgresBackend(url, name="bench", schema=schema)


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--url", default=os.environ.get("PLANNER_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    doc = big_state(args.count)
    rows: list[tuple[str, str, float, float]] = []
    with tempfile.TemporaryDirectory() as directory:
        file_backend = LocalFileBackend(Path(directory) / "bench.state.json")
        measured = measure(file_backend, doc.model_copy(deep=True), args.rounds)
        rows += [("file", *row) for row in measured]
        size = (Path(directory) / "bench.state.json").stat().st_size
    if args.url:
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        backend = postgres_backend(args.url, schema)
        try:
            measured = measure(backend, doc.model_copy(deep=True), args.rounds)
            rows += [("postgresql", *row) for row in measured]
        finally:
            backend.close()
            drop_schema(args.url, schema)
    print(
        f"state of {args.count} deployments ({size / 1024:.0f} KiB as a file), "
        f"{args.rounds} rounds; PostgreSQL: {redact_url(args.url) if args.url else 'not given'}"
    )
    print(f"{'backend':<12} {'operation':<16} {'median ms':>10} {'p95 ms':>10}")
    for backend_name, operation, median, p95 in rows:
        print(f"{backend_name:<12} {operation:<16} {median:>10.1f} {p95:>10.1f}")


if __name__ == "__main__":
    main()
