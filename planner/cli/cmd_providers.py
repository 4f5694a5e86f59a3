"""`planner providers`: list OAuth providers (not built yet)."""

from __future__ import annotations

import argparse
from typing import Any

from planner.errors import PlannerError


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("providers", parents=parents, help="list OAuth providers")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise PlannerError("`planner providers` is not implemented yet")
