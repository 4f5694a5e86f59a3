"""`planner state list | show NAME | rm NAME`: inspect the state, or forget a deployment
(the version actions, `history | rollback | pull | push`, are in `cmd_state_versions`)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from planner.cli.cmd_state_mv import MV_ACTIONS, register_mv
from planner.cli.cmd_state_versions import (
    VERSION_ACTIONS,
    StateAction,
    lock_arguments,
    register_versions,
)
from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_format_option,
    add_lock_options,
    add_state_option,
)
from planner.errors import StateError

# The state, its renderers and the target are imported where an action runs: parsing the
# command line (`planner state list --help`) needs none of them.
if TYPE_CHECKING:
    from planner.state.backend import StateBackend
    from planner.state.document import StateDocument


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("state", parents=parents, help="inspect or edit the state")
    actions = parser.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    listing = _action(actions, parents, "list", "list the managed deployments")
    add_format_option(listing, ["text", "json"])
    show = _action(actions, parents, "show", "show what is recorded for one deployment")
    show.add_argument("name", metavar="NAME")
    add_format_option(show, ["text", "json"])
    remove = _action(actions, parents, "rm", "forget a deployment (it is not deleted remotely)")
    remove.add_argument("name", metavar="NAME")
    add_lock_options(remove)
    register_versions(lambda name, text: _action(actions, parents, name, text))
    register_mv(lambda name, text: _action(actions, parents, name, text))


def _action(
    actions: Any, parents: list[argparse.ArgumentParser], name: str, help: str
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, parents=parents, help=help)
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Open the state the options point at, run the ACTION on it."""
    from planner.cli.target import resolve_target

    workspace = WorkspaceOptions.of(vars(args))
    target = resolve_target(workspace, os.environ)
    action = ACTIONS[args.state_command]
    backend = target.state.open()
    try:
        return action(backend, StateAction.of(vars(args)), workspace)
    finally:
        backend.close()


def run_list(backend: StateBackend, action: StateAction, workspace: WorkspaceOptions) -> int:
    from planner.render.console import make_console
    from planner.render.output import write_lines
    from planner.render.state_view import empty_list_line, list_lines, list_rows

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
    from planner.render.console import make_console
    from planner.render.output import write_lines
    from planner.render.state_view import pending_lines, redacted, show_lines

    doc = _require_state(backend)
    recorded = doc.get(action.name)
    console = make_console()
    if action.format == "json":
        console.print_json(json.dumps(redacted(recorded)))
    else:
        write_lines(console, show_lines(recorded) + pending_lines(doc, action.name))
    return 0


def run_rm(backend: StateBackend, action: StateAction, workspace: WorkspaceOptions) -> int:
    from planner.command_lines import suggested_command
    from planner.render.console import make_console
    from planner.render.output import write_lines
    from planner.render.state_view import removed_lines

    _require_state(backend)  # before locking: a mistyped --state creates no lock file
    with backend.lock("state rm", **lock_arguments(action)):
        doc = _require_state(backend)
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


def _require_state(backend: StateBackend) -> StateDocument:
    from planner.state.location import is_postgres_url

    doc = backend.read()
    if doc is None:
        kind = "state" if is_postgres_url(backend.location) else "state file"
        raise StateError(
            f"no {kind} at {backend.location}",
            hint="nothing is managed yet (`planner apply` creates the state), "
            "or pass --state PATH / -c FILE to point at another one",
        )
    return doc
