"""`planner state list | show NAME | rm NAME`: inspect the state, or forget a deployment
(the version actions, `history | rollback | pull | push`, are in `planner.cli.run.state_versions`,
`mv` in `planner.cli.run.state_mv`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from planner.cli.commands.state import StateAction, StateArgs
from planner.cli.options import WorkspaceOptions
from planner.cli.run.state_mv import MV_ACTIONS
from planner.cli.run.state_versions import VERSION_ACTIONS, lock_arguments
from planner.cli.target import resolve_target
from planner.command_lines import suggested_command
from planner.render.console import make_console
from planner.render.output import write_lines
from planner.render.state_view import (
    empty_list_line,
    list_lines,
    list_rows,
    pending_lines,
    redacted,
    removed_lines,
    show_lines,
)
from planner.state.backend import StateBackend
from planner.state.location import require_state


def run(args: StateArgs) -> int:
    """Open the state the options point at, run the ACTION on it."""
    target = resolve_target(args.workspace, os.environ)
    action = ACTIONS[args.action]
    backend = target.state.open()
    try:
        return action(backend, args.options, args.workspace)
    finally:
        backend.close()


def run_list(backend: StateBackend, action: StateAction, workspace: WorkspaceOptions) -> int:
    doc = backend.read()
    console = make_console()
    if action.format == "json":
        console.print_json(json.dumps(list_rows(doc)))
    elif doc is None or not doc.deployments:
        write_lines(console, [empty_list_line(backend.location, doc)])
    else:
        write_lines(console, list_lines(doc))
    return 0


def run_show(backend: StateBackend, action: StateAction, workspace: WorkspaceOptions) -> int:
    doc = require_state(backend)
    recorded = doc.get(action.name)
    console = make_console()
    if action.format == "json":
        console.print_json(json.dumps(redacted(recorded)))
    else:
        write_lines(console, show_lines(recorded) + pending_lines(doc, action.name))
    return 0


def run_rm(backend: StateBackend, action: StateAction, workspace: WorkspaceOptions) -> int:
    require_state(backend)  # before locking: a mistyped --state creates no lock file
    with backend.lock("state rm", **lock_arguments(action)):
        doc = require_state(backend)
        forgotten = doc.forget(action.name)
        backend.write(doc)
    args = workspace.command_args(os.environ)
    again = suggested_command("import", forgotten.name, forgotten.id, command_args=args)
    write_lines(make_console(), removed_lines(forgotten, backend.location, again))
    return 0


ACTIONS: dict[str, Callable[[StateBackend, StateAction, WorkspaceOptions], int]] = {
    "list": run_list,
    "show": run_show,
    "rm": run_rm,
    **VERSION_ACTIONS,
    **MV_ACTIONS,
}
