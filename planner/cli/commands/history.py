"""The arguments of `planner history NAME`: the deployment, the workspace and the format."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import WorkspaceOptions, add_format_option, add_workspace_options


@dataclass(frozen=True)
class HistoryArgs:
    """What `planner history` was given."""

    name: str
    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "history",
        parents=parents,
        help="list the revisions of a managed deployment",
        description="The revisions of NAME, newest first, with their status and the "
        "fields that changed from one to the next.",
    )
    parser.add_argument("name", metavar="NAME")
    add_workspace_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(parse=parse, run_module="history")


def parse(namespace: argparse.Namespace) -> HistoryArgs:
    return HistoryArgs(namespace.name, WorkspaceOptions.of(vars(namespace)), namespace.format)
