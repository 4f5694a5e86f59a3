"""The arguments of `planner apply [PLANFILE]`, and the flags that do not go together: a
saved plan is applied exactly (no `--only`, `--exclude`, `--replace` or `--refresh-only`),
and `--refresh-only` records drift (no `--replace`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    RunOptions,
    WorkspaceOptions,
    add_run_options,
    add_selection_options,
)
from planner.errors import PlanError


@dataclass(frozen=True)
class ApplyArgs:
    """What `planner apply` was given, its flags checked against each other."""

    workspace: WorkspaceOptions
    options: RunOptions
    planfile: str | None = None
    only: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    refresh_only: bool = False


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "apply",
        parents=parents,
        help="apply the changes of a plan",
        description="Plan, confirm and apply; or apply a plan saved with `planner plan --out`.",
    )
    parser.add_argument("planfile", nargs="?", metavar="PLANFILE", help="a saved plan to apply")
    add_run_options(parser)
    add_selection_options(
        parser,
        "apply",
        refresh_only="record what changed outside the planner into the state; "
        "change nothing remotely",
    )
    parser.set_defaults(parse=parse, run_module="apply")


def parse(namespace: argparse.Namespace) -> ApplyArgs:
    given = vars(namespace)
    args = ApplyArgs(
        WorkspaceOptions.of(given),
        RunOptions.of(given),
        planfile=namespace.planfile or None,
        only=tuple(namespace.only),
        exclude=tuple(namespace.exclude),
        replace=tuple(namespace.replace),
        refresh_only=namespace.refresh_only,
    )
    check(args)
    return args


def check(args: ApplyArgs) -> None:
    """Refuse the flags of ARGS that do not go together."""
    if args.planfile and (args.only or args.exclude or args.replace):
        raise PlanError("--only, --exclude and --replace cannot be used with a saved plan")
    if args.refresh_only and (args.planfile or args.replace):
        raise PlanError("--refresh-only cannot be combined with a saved plan or --replace")
