"""`planner unlock LOCK_ID`: clear a state lock whose holder died.

The lock itself (an OS file lock, or a PostgreSQL advisory lock) is released when its
process dies, so what is left to clear is the lock's recorded info; a lock a live
process holds is refused.
"""

from __future__ import annotations

import os

from planner.cli.commands.unlock import UnlockArgs
from planner.cli.target import resolve_target
from planner.render.console import make_console


def run(args: UnlockArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
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
