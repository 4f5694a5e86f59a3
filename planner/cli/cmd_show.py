"""`planner show PLANFILE`: render a saved plan as `planner plan` would, without the network.

The seal is checked first (with the plan key beside the plan's state, or `--state`), so
what is shown is exactly what `planner apply PLANFILE` would do; an altered file is
refused. Nothing is locked, refreshed or written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from planner.cli.cmd_plan import render
from planner.cli.common import add_format_option
from planner.plan.saved import SavedPlan, check_seal, read_saved_plan
from planner.state.plan_key import read_plan_key


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
        parents=parents,
        help="render a saved plan (text, markdown or JSON)",
        description="Render a plan saved by `planner plan --out` in the formats of "
        "`planner plan`, after checking its seal. No network.",
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
    saved = load_checked(args.planfile, args.state)
    sys.stdout.write(render(saved.plan, args))
    return 0


def load_checked(planfile: str, state: str | None) -> SavedPlan:
    """The saved plan, its seal verified with its state's plan key."""
    saved = read_saved_plan(planfile)
    check_seal(saved, read_plan_key(state or saved.state_path), Path(planfile).absolute())
    return saved
