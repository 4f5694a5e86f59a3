"""`planner destroy`: delete every deployment in the state (after confirmation).

The same run as `planner apply`, with a destroy plan: lock, plan with `destroy=True`,
show, ask for `yes` (or `--auto-approve`), bulk delete, record what is gone.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from planner.cli.cmd_apply import add_run_options, run_apply
from planner.cli.common import repeated_args
from planner.plan.diff import PlanOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "destroy",
        parents=parents,
        help="delete every deployment in the state",
        description="Delete every deployment the state manages (never any other one).",
    )
    add_run_options(parser)
    parser.set_defaults(func=run, planfile=None)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(
        run_apply(
            args, PlanOptions(destroy=True, command_args=repeated_args(args)), operation="destroy"
        )
    )
