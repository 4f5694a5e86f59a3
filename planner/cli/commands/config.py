"""The arguments of `planner config`: the config file, its environment and the format."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_format_option,
)


@dataclass(frozen=True)
class ConfigArgs:
    """What `planner config` was given."""

    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "config",
        parents=parents,
        help="print the resolved config of one environment",
        description="Print the config as planner reads it for one environment: variables "
        "filled in, templates and defaults merged, secrets masked.",
    )
    add_config_option(parser)
    add_environment_options(parser)
    add_format_option(parser, ["toml", "json"])
    parser.set_defaults(parse=parse, run_module="config")


def parse(namespace: argparse.Namespace) -> ConfigArgs:
    return ConfigArgs(WorkspaceOptions.of(vars(namespace)), namespace.format)
