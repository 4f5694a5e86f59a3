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

from planner.cli.cmd_apply import use_saved_paths
from planner.cli.cmd_plan import render
from planner.cli.common import add_format_option, opened_state
from planner.plan.saved import SavedPlan, check_seal, read_saved_plan


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
    """The saved plan, its seal verified with its state's plan key (a file beside a file
    state, a column of a PostgreSQL state): the state is opened, never locked or read."""
    saved = read_saved_plan(planfile)
    where = argparse.Namespace(
        config=saved.config_path, state=state, env=saved.plan.environment, state_dir=None
    )
    use_saved_paths(where, saved)
    with opened_state(where) as backend:
        key = backend.plan_key(create=False)
    check_seal(saved, key, Path(planfile).absolute())
    return saved
