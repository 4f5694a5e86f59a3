"""`planner state`: inspect or edit the state (not built yet)."""

from __future__ import annotations

import argparse
from typing import Any

from planner.errors import PlannerError


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("state", parents=parents, help="inspect or edit the state")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise PlannerError("`planner state` is not implemented yet")
