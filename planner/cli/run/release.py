"""`planner release NAME`: lift the hold a rollback left, so plans and applies manage the
deployment again (`planner.apply.release`: under the state lock, one write; nothing is
sent to the control plane; the config is not read beyond finding the state)."""

from __future__ import annotations

import asyncio
import os

from planner.apply.release import Released, release_hold
from planner.cli.commands.release import ReleaseArgs
from planner.cli.exits import EXIT_OK
from planner.cli.target import resolve_target
from planner.render.console import make_console
from planner.render.output import write_lines, write_notice
from planner.render.rollback_view import release_lines
from planner.state.backend import StateBackend
from planner.state.location import require_state


def run(args: ReleaseArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    backend = target.state.open()
    try:
        done = release(backend, args)
    finally:
        backend.close()
    write_lines(make_console(), release_lines(done))
    return EXIT_OK


def release(backend: StateBackend, args: ReleaseArgs) -> Released:
    require_state(backend)  # before locking: a mistyped --state creates no lock file
    lock = backend.lock(
        "release", timeout=args.lock_timeout, on_wait=write_notice, lease=args.lock_lease
    )
    with lock:
        doc = require_state(backend)
        return asyncio.run(release_hold(backend, doc, args.name))
