"""The arguments of `planner destroy`: those of `planner apply` without a plan file or a
selection (`planner.cli.options.add_run_options`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import RunOptions, WorkspaceOptions, add_run_options


@dataclass(frozen=True)
class DestroyArgs:
    """What `planner destroy` was given."""

    workspace: WorkspaceOptions
    options: RunOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "destroy",
        parents=parents,
        help="delete every deployment in the state",
        description="Delete every deployment the state manages (never any other one).",
    )
    add_run_options(parser)
    parser.set_defaults(parse=parse, run_module="destroy")


def parse(namespace: argparse.Namespace) -> DestroyArgs:
    given = vars(namespace)
    return DestroyArgs(WorkspaceOptions.of(given), RunOptions.of(given))
