"""`planner state mv OLD NEW`: record a deployment under another address, by hand.

What a move in the plan does (planner.plan.moves), for the cases it cannot see: the
remote deployment is not touched, the state is written under its lock.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.cli.commands.state import StateAction
from planner.cli.options import WorkspaceOptions
from planner.cli.run.state_versions import lock_arguments
from planner.config.checks import check_name
from planner.errors import StateError
from planner.render.console import make_console
from planner.render.output import write_lines
from planner.state.backend import StateBackend
from planner.state.document import StateDocument
from planner.state.moves import move_recorded


def run_mv(backend: StateBackend, action: StateAction, _: WorkspaceOptions) -> int:
    old, new = action.old, action.new
    problems = check_name(new)
    if problems:
        raise StateError(f"cannot move {old} to {new}: {problems[0].message}")
    # checked before locking (a refused move takes no lock), then again under it
    move_recorded(_stored(backend), old, new)
    with backend.lock("state mv", **lock_arguments(action)):
        doc = _stored(backend)
        moved = move_recorded(doc, old, new)
        backend.write(doc)
    lines = [
        f"Moved {old} to {new} (deployment {moved.id}) in the state {backend.location}.",
        "Nothing was sent to the control plane; rename the table in the config to match.",
    ]
    write_lines(make_console(), lines)
    return 0


def _stored(backend: StateBackend) -> StateDocument:
    doc = backend.read()
    if doc is None:
        raise StateError(f"no state at {backend.location}: nothing to move")
    return doc


MV_ACTIONS: dict[str, Callable[[StateBackend, StateAction, WorkspaceOptions], int]] = {
    "mv": run_mv,
}
