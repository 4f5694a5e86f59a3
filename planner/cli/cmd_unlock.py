"""`planner unlock`: release a stuck state lock (not built yet)."""

from __future__ import annotations

import argparse
from typing import Any

from planner.errors import PlannerError


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("unlock", parents=parents, help="release a stuck state lock")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise PlannerError("`planner unlock` is not implemented yet")
