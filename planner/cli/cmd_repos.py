"""`planner repos`: list repositories of a git_host integration (not built yet)."""

from __future__ import annotations

import argparse
from typing import Any

from planner.errors import PlannerError


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "repos", parents=parents, help="list repositories of a git_host integration"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise PlannerError("`planner repos` is not implemented yet")
