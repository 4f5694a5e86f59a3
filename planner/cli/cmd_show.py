"""`planner show PLANFILE`: render a saved plan as `planner plan` would, without the control
plane (a PostgreSQL state's database is read for the plan key).

The seal is checked first (with the plan key beside the plan's state, or `--state`), so
what is shown is exactly what `planner apply PLANFILE` would do; an altered file is
refused. Nothing is locked, refreshed or written.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from planner.cli.cmd_plan import render
from planner.cli.options import OutputOptions, WorkspaceOptions, add_format_option


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
        parents=parents,
        help="render a saved plan (text, markdown or JSON)",
        description="Render a plan saved by `planner plan --out` in the formats of "
        "`planner plan`, after checking its seal with the plan key kept in its state (a "
        "PostgreSQL state: read from its database). No request to the control plane.",
    )
    parser.add_argument("planfile", metavar="PLANFILE", help="a plan saved by `plan --out`")
    add_format_option(parser, ["text", "markdown", "json"])
    parser.add_argument(
        "--state",
        default=None,
        metavar="PATH",
        help="the state the plan was made with (default: the one it names)",
    )
    parser.add_argument("--verbose", action="store_true", help="show unchanged fields too")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # imported here: `planner show --help` needs neither the models nor the seal
    from planner.cli.saved_target import load_sealed_plan

    workspace = WorkspaceOptions.of(vars(args))
    sealed = load_sealed_plan(args.planfile, workspace, os.environ)
    sys.stdout.write(render(sealed.saved.plan, OutputOptions.of(vars(args))))
    return 0
