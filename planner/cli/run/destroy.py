"""`planner destroy`: delete every deployment in the state (after confirmation).

The same run as `planner apply`, with a destroy plan: lock, plan with `destroy=True`,
show, ask for `yes` (or `--auto-approve`), bulk delete, record what is gone.
"""

from __future__ import annotations

import asyncio
import os

from planner.cli.commands.destroy import DestroyArgs
from planner.cli.run.apply import run_apply
from planner.cli.target import resolve_target
from planner.plan.diff import PlanOptions


def run(args: DestroyArgs) -> int:
    workspace = args.workspace
    plan_options = PlanOptions(destroy=True, command_args=workspace.command_args(os.environ))
    target = resolve_target(workspace, os.environ)
    return asyncio.run(run_apply(target, args.options, plan_options, operation="destroy"))
