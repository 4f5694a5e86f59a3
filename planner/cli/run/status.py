"""`planner status`: every managed deployment as it runs now.

Read-only and lock-free (like `state list`): the state is read, the managed deployments
refreshed at list cost (`ceil(N/100)` list requests, plus one revision read per deployment
whose latest and active revision differ), and one row printed per deployment. No secret
value is read: a secret's drift compares the digest the state records with the live
value, so the config is loaded without the secrets' environment variables
(`NotingMissing`): one that is not set is no error.
"""

from __future__ import annotations

import os

from planner.cli.commands.status import StatusArgs
from planner.cli.exits import EXIT_OK
from planner.cli.run_async import run_async
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.config.secret_values import NotingMissing
from planner.plan.status import StatusRow, status_rows
from planner.render.console import make_console
from planner.render.output import write_json, write_lines, write_warnings
from planner.render.status_view import empty_status_line, rows_json, status_lines


def run(args: StatusArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    rows, location = run_async(read_status(target))
    console = make_console()
    if args.format == "json":
        write_json(console, rows_json(rows))
    elif not rows:
        write_lines(console, [empty_status_line(location)])
    else:
        write_lines(console, status_lines(rows, args.workspace.command_args(os.environ)))
    return EXIT_OK


async def read_status(target: Target) -> tuple[list[StatusRow], str]:
    async with Workspace.open(target, environ=NotingMissing(os.environ)) as ws:
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
