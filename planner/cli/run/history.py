"""`planner history NAME`: the revisions of one managed deployment, newest first.

Read-only: NAME is looked up in the state (an unknown name is an error listing the known
ones), then
one GET of the deployment (which revision is active) and its revision list. No secret
is read: the config is loaded without the secrets' environment variables
(`NotingMissing`), so one that is not set is no error.
"""

from __future__ import annotations

import asyncio
import os

from planner.cli.commands.history import HistoryArgs
from planner.cli.exits import EXIT_OK
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.config.secret_values import NotingMissing
from planner.plan.status import HistoryEntry, history_entries
from planner.render.console import make_console
from planner.render.output import write_json, write_lines
from planner.render.status_view import history_lines, rows_json
from planner.state.records import Hold


def run(args: HistoryArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    entries, hold = asyncio.run(read_history(target, args.name))
    console = make_console()
    if args.format == "json":
        write_json(console, rows_json(entries))
    else:
        args_given = args.workspace.command_args(os.environ)
        write_lines(console, history_lines(args.name, entries, hold, args_given))
    return EXIT_OK


async def read_history(target: Target, name: str) -> tuple[list[HistoryEntry], Hold | None]:
    """NAME's revisions, and the hold a rollback recorded on it (None: not held)."""
    async with Workspace.open(target, environ=NotingMissing(os.environ)) as ws:
        doc = ws.read_state()
        recorded = doc.get(name)  # a StateError listing the known names
        deployment = await ws.client.get_deployment(recorded.id)
        revisions = await ws.client.list_revisions(recorded.id)
    held = recorded.held.revision_id if recorded.held is not None else None
    return history_entries(revisions, deployment.active_revision_id, held), recorded.held
