"""Benchmark the cost of recording one apply operation in the state, by state size.

    python benchmarks/bench_state_ops.py [--counts 1000,10000] [--ops 200] [--url ...]

For each state size and backend (file; PostgreSQL when --url or
$PLANNER_TEST_POSTGRES_URL is given), after one write of a state of COUNT deployments:
- full write per op: what every commit did before the operation log (record one
  deployment, then `backend.write` of a copy of the whole document);
- log append per op: what a commit does now (journal an intent, record the deployment,
  clear the intent, then `backend.append` of those deltas: one fsynced group);
- compaction: the one versioned write that folds the OPS appended groups, at the end.
Wall and CPU milliseconds per operation (medians). Prints a table; not a test.
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

from bench_state import big_state, drop_schema, postgres_backend

from planner.state import LocalFileBackend, RecordedDeployment, StateBackend, StateDocument
from planner.state.document import advance
from planner.state.oplog import group_of

ID = "6f1c2c1e-0000-4000-8000-0000000000aa"


def per_op(action: Callable[[int], object], rounds: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ACTION(i) over ROUNDS calls."""
    walls, cpus = [], []
    for index in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        action(index)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


def measure(backend: StateBackend, doc: StateDocument, ops: int) -> list[tuple[str, float, float]]:
    backend.write(doc)

    def full_write(index: int) -> None:
        doc.record(RecordedDeployment(name=f"full-{index}", id=ID))
        advance(doc, backend.write(doc.model_copy(deep=True)))  # as the recorder did

    def append(index: int) -> None:
        intent = doc.add_intent("create", f"new-{index}")
        doc.record(RecordedDeployment(name=f"new-{index}", id=ID))
        doc.clear_intent(intent)
        backend.append(group_of(doc, doc.take_changes()))

    full = per_op(full_write, max(5, ops // 20))
    doc.track_changes()
    appended = per_op(append, ops)
    doc.take_changes()
    compaction = per_op(lambda _: backend.write(doc.model_copy(deep=True)), 1)
    return [
        ("full write per op", *full),
        ("log append per op", *appended),
        (f"compaction of {ops}", *compaction),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1000,10000", help="state sizes, comma-separated")
    parser.add_argument("--ops", type=int, default=200, help="appended operations per size")
    parser.add_argument("--url", default=os.environ.get("PLANNER_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    print(f"{'deployments':>11} {'backend':<11} {'operation':<20} {'wall ms':>9} {'CPU ms':>8}")
    for count in (int(part) for part in args.counts.split(",")):
        doc = big_state(count)
        with tempfile.TemporaryDirectory() as directory:
            file_backend = LocalFileBackend(Path(directory) / "bench.state.json")
            measured = measure(file_backend, doc.model_copy(deep=True), args.ops)
            rows = [("file", *row) for row in measured]
        if args.url:
            schema = f"bench_{uuid.uuid4().hex[:8]}"
            backend = postgres_backend(args.url, schema)
            try:
                measured = measure(backend, doc.model_copy(deep=True), args.ops)
                rows += [("postgresql", *row) for row in measured]
            finally:
                backend.close()
                drop_schema(args.url, schema)
        for name, operation, wall, cpu in rows:
            print(f"{count:>11} {name:<11} {operation:<20} {wall:>9.2f} {cpu:>8.2f}")


if __name__ == "__main__":
    main()
