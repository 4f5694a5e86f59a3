"""`planner plan`: show what apply would change (not built yet)."""

from __future__ import annotations

import argparse
from typing import Any

from planner.errors import PlannerError


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("plan", parents=parents, help="show what apply would change")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise PlannerError("`planner plan` is not implemented yet")
