"""The arguments of `planner providers`: the endpoint and the format."""

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
class ProvidersArgs:
    """What `planner providers` was given."""

    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("providers", parents=parents, help="list OAuth providers")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(parse=parse, run_module="providers")


def parse(namespace: argparse.Namespace) -> ProvidersArgs:
    return ProvidersArgs(WorkspaceOptions.of(vars(namespace)), namespace.format)
