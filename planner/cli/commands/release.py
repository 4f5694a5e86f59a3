"""The arguments of `planner release NAME`: the held deployment, where its state is, and
the lock's wait and lease (a state write; nothing is sent to the control plane)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_lock_options,
    add_state_option,
)
from planner.errors import PlanError
from planner.state.lease import DEFAULT_LEASE_SECONDS


@dataclass(frozen=True)
class ReleaseArgs:
    """What `planner release` was given."""

    name: str
    workspace: WorkspaceOptions
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "release",
        parents=parents,
        help="lift a rollback's hold: plans and applies manage the deployment again",
        description="Lift the hold `planner rollback` left on NAME (a state write; nothing "
        "is sent): the next plan shows the config's changes to it again.",
    )
    parser.add_argument("name", metavar="NAME", help="the held deployment's name in the config")
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    add_lock_options(parser)
    parser.set_defaults(parse=parse, run_module="release")


def parse(namespace: argparse.Namespace) -> ReleaseArgs:
    if not namespace.name:
        raise PlanError("release needs the NAME of a held deployment")
    return ReleaseArgs(
        namespace.name,
        WorkspaceOptions.of(vars(namespace)),
        lock_timeout=namespace.lock_timeout,
        lock_lease=namespace.lock_lease,
    )
