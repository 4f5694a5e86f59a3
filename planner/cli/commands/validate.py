"""The arguments of `planner validate`: the config file, and the environment to check (else
every one)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import WorkspaceOptions, add_config_option, add_environment_options


@dataclass(frozen=True)
class ValidateArgs:
    """What `planner validate` was given."""

    workspace: WorkspaceOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "validate",
        parents=parents,
        help="validate the config file (no network)",
        description="Validate the config file without touching the network, in every "
        "environment unless --env names one.",
    )
    add_config_option(parser)
    add_environment_options(parser)
    parser.set_defaults(parse=parse, run_module="validate")


def parse(namespace: argparse.Namespace) -> ValidateArgs:
    return ValidateArgs(WorkspaceOptions.of(vars(namespace)))
