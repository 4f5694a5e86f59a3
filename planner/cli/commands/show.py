"""The arguments of `planner show PLANFILE`: the plan file, its state and the format."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import OutputOptions, WorkspaceOptions, add_format_option


@dataclass(frozen=True)
class ShowArgs:
    """What `planner show` was given."""

    planfile: str
    workspace: WorkspaceOptions
    output: OutputOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "show",
        parents=parents,
        help="render a saved plan (text, markdown or JSON)",
        description="Render a plan saved by `planner plan --out` in the formats of "
        "`planner plan`, after checking its seal with the plan key kept in its state (a "
        "PostgreSQL state: read from its database). No request to the control plane.",
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
    parser.set_defaults(parse=parse, run_module="show")


def parse(namespace: argparse.Namespace) -> ShowArgs:
    given = vars(namespace)
    return ShowArgs(namespace.planfile, WorkspaceOptions.of(given), OutputOptions.of(given))
