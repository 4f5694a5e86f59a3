"""The arguments of `planner state ACTION`: `list | show NAME | rm NAME`, the version
actions `history | rollback SERIAL | pull | push FILE`, and `mv OLD NEW`; each takes the
config, the state and the environment, and some of `StateAction`'s options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    Options,
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_format_option,
    add_lock_options,
    add_state_option,
)
from planner.state.lease import DEFAULT_LEASE_SECONDS

Action = Callable[[str, str], argparse.ArgumentParser]  # makes one action's parser


@dataclass(frozen=True)
class StateAction(Options):
    """The options of one `planner state` action (each takes some of them)."""

    format: str = "text"
    name: str = ""
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    serial: int = 0
    file: str = ""
    force: bool = False
    old: str = ""
    new: str = ""


@dataclass(frozen=True)
class StateArgs:
    """What `planner state` was given: the action, its options and the workspace."""

    action: str
    options: StateAction
    workspace: WorkspaceOptions


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("state", parents=parents, help="inspect or edit the state")
    actions = parser.add_subparsers(dest="state_command", metavar="ACTION", required=True)

    def action(name: str, help: str) -> argparse.ArgumentParser:
        return _action(actions, parents, name, help)

    listing = action("list", "list the managed deployments")
    add_format_option(listing, ["text", "json"])
    show = action("show", "show what is recorded for one deployment")
    show.add_argument("name", metavar="NAME")
    add_format_option(show, ["text", "json"])
    remove = action("rm", "forget a deployment (it is not deleted remotely)")
    remove.add_argument("name", metavar="NAME")
    add_lock_options(remove)
    register_versions(action)
    register_mv(action)


def _action(
    actions: Any, parents: list[argparse.ArgumentParser], name: str, help: str
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, parents=parents, help=help)
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    parser.set_defaults(parse=parse, run_module="state")
    return parser


def register_versions(action: Action) -> None:
    """The version actions (ACTION(name, help) makes one)."""
    history = action("history", "list the kept versions of the state")
    add_format_option(history, ["text", "json"])
    back = action("rollback", "write an old version back as a new one")
    back.add_argument("serial", type=int, metavar="SERIAL", help="the version to restore")
    add_lock_options(back)
    action("pull", "print the current state as JSON (a state file's content)")
    upload = action("push", "upload a state file as the next version")
    upload.add_argument("file", metavar="FILE", help="a state file (e.g. from `state pull`)")
    upload.add_argument(
        "--force",
        action="store_true",
        help="push over another lineage, an older serial or diverged content",
    )
    add_lock_options(upload)


def register_mv(action: Action) -> None:
    """`mv` (ACTION(name, help) makes one)."""
    move = action("mv", "record a deployment under another address (nothing remote)")
    move.add_argument("old", metavar="OLD", help="the address the state records it under")
    move.add_argument("new", metavar="NEW", help="the address to record it under")
    add_lock_options(move)


def parse(namespace: argparse.Namespace) -> StateArgs:
    given = vars(namespace)
    return StateArgs(namespace.state_command, StateAction.of(given), WorkspaceOptions.of(given))
