"""`planner status`: every managed deployment as it runs now.

Read-only and lock-free (like `state list`): the state is read, the managed deployments
refreshed at list cost (`ceil(N/100)` list requests, plus one revision read per deployment
whose latest and active revision differ), and one row printed per deployment.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from planner.cli.exits import EXIT_OK
from planner.cli.options import WorkspaceOptions, add_format_option, add_workspace_options
from planner.cli.run_async import run_async

# The engine and the views are imported where they are used: `planner status --help`
# needs none of them.
if TYPE_CHECKING:
    from planner.cli.target import Target
    from planner.plan.status import StatusRow


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "status",
        parents=parents,
        help="show every managed deployment as it runs now",
        description="One row per managed deployment: id, active and latest revision with "
        "their status, last update, url where known, and whether it drifted.",
    )
    add_workspace_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from planner.cli.target import resolve_target
    from planner.render.console import make_console
    from planner.render.output import write_json, write_lines
    from planner.render.status_view import empty_status_line, rows_json, status_lines

    target = resolve_target(WorkspaceOptions.of(vars(args)), os.environ)
    rows, location = run_async(read_status(target))
    console = make_console()
    if args.format == "json":
        write_json(console, rows_json(rows))
    elif not rows:
        write_lines(console, [empty_status_line(location)])
    else:
        write_lines(console, status_lines(rows))
    return EXIT_OK


async def read_status(target: Target) -> tuple[list[StatusRow], str]:
    from planner.cli.workspace import Workspace
    from planner.plan.status import status_rows
    from planner.render.output import write_warnings

    async with Workspace.open(target) as ws:
        write_warnings(ws.config.warnings)
        doc = ws.read_state()
        observed = await ws.refresh(doc, [])
        rows = status_rows(
            doc.deployments,
            observed.by_name,
            observed.health,
            ws.config.deployments,
            ws.digest_key(doc),
        )
    return rows, ws.backend.location
