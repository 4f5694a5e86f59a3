"""The arguments of `planner repos INTEGRATION_ID`: the integration, the endpoint and the
format."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_endpoint_options,
    add_format_option,
)


@dataclass(frozen=True)
class ReposArgs:
    """What `planner repos` was given."""

    integration_id: str
    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("repos", parents=parents, help="list repositories of a git integration")
    parser.add_argument("integration_id", metavar="INTEGRATION_ID")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json", "toml"])
    parser.set_defaults(parse=parse, run_module="repos")


def parse(namespace: argparse.Namespace) -> ReposArgs:
    given = vars(namespace)
    return ReposArgs(namespace.integration_id, WorkspaceOptions.of(given), namespace.format)
