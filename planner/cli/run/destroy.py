"""`planner destroy`: delete every deployment in the state (after confirmation).

The same run as `planner apply`, with a destroy plan: lock, plan with `destroy=True`,
show, ask for `yes` (or `--auto-approve`), bulk delete, record what is gone.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from planner.cli.cmd_apply import run_apply
from planner.cli.options import RunOptions, WorkspaceOptions, add_run_options


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "destroy",
        parents=parents,
        help="delete every deployment in the state",
        description="Delete every deployment the state manages (never any other one).",
    )
    add_run_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio  # the engine is imported here: `planner destroy --help` needs none of it

    from planner.cli.target import resolve_target
    from planner.plan.diff import PlanOptions

    workspace, options = WorkspaceOptions.of(vars(args)), RunOptions.of(vars(args))
    plan_options = PlanOptions(destroy=True, command_args=workspace.command_args(os.environ))
    target = resolve_target(workspace, os.environ)
    return asyncio.run(run_apply(target, options, plan_options, operation="destroy"))
