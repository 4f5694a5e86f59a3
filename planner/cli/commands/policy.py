"""The arguments of `planner policy test`: the config file, its environment and the format."""

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
class PolicyTestArgs:
    """What `planner policy test` was given."""

    workspace: WorkspaceOptions
    format: str


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("policy", parents=parents, help="check the config's policies")
    actions = parser.add_subparsers(dest="policy_command", metavar="ACTION", required=True)
    test = actions.add_parser(
        "test",
        parents=parents,
        help="evaluate the policies against the desired config (no network)",
        description="Evaluate the config's [policies] against its deployments, each as if "
        "it were created, without the network or the state; in every environment unless "
        "--env names one. Exit 1 when a policy denies.",
    )
    add_config_option(test)
    add_environment_options(test)
    add_format_option(test, ["text", "json"])
    test.set_defaults(parse=parse, run_module="policy")


def parse(namespace: argparse.Namespace) -> PolicyTestArgs:
    return PolicyTestArgs(WorkspaceOptions.of(vars(namespace)), namespace.format)
