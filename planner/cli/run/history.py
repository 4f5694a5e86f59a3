"""`planner history NAME`: the revisions of one managed deployment, newest first.

Read-only: NAME is looked up in the state (an unknown name is an error listing the known
ones), then
one GET of the deployment (which revision is active) and its revision list.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from planner.cli.exits import EXIT_OK
from planner.cli.options import WorkspaceOptions, add_format_option, add_workspace_options

# The engine and the views are imported where they are used: `planner history --help`
# needs none of them.
if TYPE_CHECKING:
    from planner.cli.target import Target
    from planner.plan.status import HistoryEntry


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "history",
        parents=parents,
        help="list the revisions of a managed deployment",
        description="The revisions of NAME, newest first, with their status and the "
        "fields that changed from one to the next.",
    )
    parser.add_argument("name", metavar="NAME")
    add_workspace_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from planner.cli.target import resolve_target
    from planner.render.console import make_console
    from planner.render.output import write_json, write_lines
    from planner.render.status_view import history_lines, rows_json

    target = resolve_target(WorkspaceOptions.of(vars(args)), os.environ)
    entries = asyncio.run(read_history(target, args.name))
    console = make_console()
    if args.format == "json":
        write_json(console, rows_json(entries))
    else:
        write_lines(console, history_lines(args.name, entries))
    return EXIT_OK


async def read_history(target: Target, name: str) -> list[HistoryEntry]:
    from planner.cli.workspace import Workspace
    from planner.plan.status import history_entries

    async with Workspace.open(target) as ws:
        doc = ws.read_state()
        recorded = doc.get(name)  # a StateError listing the known names
        deployment = await ws.client.get_deployment(recorded.id)
        revisions = await ws.client.list_revisions(recorded.id)
    return history_entries(revisions, deployment.active_revision_id)
