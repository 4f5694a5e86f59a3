"""`planner unlock LOCK_ID`: clear a state lock whose holder died.

The lock itself (an OS file lock, or a PostgreSQL advisory lock) is released when its
process dies, so what is left to clear is the lock's recorded info; a lock a live
process holds is refused.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_state_option,
)


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "unlock", parents=parents, help="clear a state lock left by a process that died"
    )
    parser.add_argument("lock_id", metavar="LOCK_ID", help="the id the lock error printed")
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # imported here: `planner unlock --help` needs neither the state nor rich
    from planner.cli.target import resolve_target
    from planner.render.console import make_console

    target = resolve_target(WorkspaceOptions.of(vars(args)), os.environ)
    backend = target.state.open()
    try:
        cleared = backend.force_unlock(args.lock_id)
    finally:
        backend.close()
    console = make_console()
    lines = [
        f"Cleared lock {cleared.id} on the state {backend.location}.",
        f"It was taken by {cleared.who} (pid {cleared.pid}) for `{cleared.operation}` "
        f"at {cleared.created}; that process is no longer running.",
    ]
    for line in lines:
        console.print(line, markup=False)
    return 0
