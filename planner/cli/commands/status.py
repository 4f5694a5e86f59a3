"""The arguments of `planner status`: the workspace and the format."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import WorkspaceOptions, add_format_option, add_workspace_options


@dataclass(frozen=True)
class StatusArgs:
    """What `planner status` was given."""

    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "status",
        parents=parents,
        help="show every managed deployment as it runs now",
        description="One row per managed deployment: id, active and latest revision with "
        "their status, last update, url where known, and whether it drifted.",
    )
    add_workspace_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(parse=parse, run_module="status")


def parse(namespace: argparse.Namespace) -> StatusArgs:
    return StatusArgs(WorkspaceOptions.of(vars(namespace)), namespace.format)
