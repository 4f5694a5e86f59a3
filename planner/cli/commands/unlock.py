"""The arguments of `planner unlock LOCK_ID`: the lock's id and where the state is."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_state_option,
)


@dataclass(frozen=True)
class UnlockArgs:
    """What `planner unlock` was given."""

    lock_id: str
    workspace: WorkspaceOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "unlock", parents=parents, help="clear a state lock left by a process that died"
    )
    parser.add_argument("lock_id", metavar="LOCK_ID", help="the id the lock error printed")
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    parser.set_defaults(parse=parse, run_module="unlock")


def parse(namespace: argparse.Namespace) -> UnlockArgs:
    return UnlockArgs(namespace.lock_id, WorkspaceOptions.of(vars(namespace)))
