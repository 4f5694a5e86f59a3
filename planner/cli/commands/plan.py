"""The arguments of `planner plan`, and the flags that do not go together: `--refresh-only`
only shows drift, so it takes no `--destroy`, `--replace` or `--out`."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    OutputOptions,
    WorkspaceOptions,
    add_format_option,
    add_selection_options,
    add_workspace_options,
    seconds,
)
from planner.errors import PlanError


@dataclass(frozen=True)
class PlanArgs:
    """What `planner plan` was given, its flags checked against each other."""

    workspace: WorkspaceOptions
    output: OutputOptions
    out: str | None = None
    detailed_exitcode: bool = False
    only: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    destroy: bool = False
    refresh_only: bool = False


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "plan",
        parents=parents,
        help="show what apply would change",
        description="Compare the config with the state and the live control plane and "
        "show, field by field, what apply would change.",
    )
    add_workspace_options(parser)
    parser.add_argument("--out", metavar="PLANFILE", help="save the plan for `planner apply`")
    add_format_option(parser, ["text", "markdown", "json"])
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 0 when there are no changes, 2 when there are, 1 on error",
    )
    add_selection_options(
        parser,
        "plan",
        refresh_only="only show what changed outside the planner (read-only: "
        "`planner apply --refresh-only` records it into the state)",
    )
    parser.add_argument("--destroy", action="store_true", help="plan to delete every managed one")
    parser.add_argument(
        "--lock-timeout",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="no effect: a plan takes no lock (accepted for scripts written when it did)",
    )
    parser.add_argument("--verbose", action="store_true", help="show unchanged fields too")
    parser.set_defaults(parse=parse, run_module="plan")


def parse(namespace: argparse.Namespace) -> PlanArgs:
    given = vars(namespace)
    args = PlanArgs(
        WorkspaceOptions.of(given),
        OutputOptions.of(given),
        out=namespace.out,
        detailed_exitcode=namespace.detailed_exitcode,
        only=tuple(namespace.only),
        exclude=tuple(namespace.exclude),
        replace=tuple(namespace.replace),
        destroy=namespace.destroy,
        refresh_only=namespace.refresh_only,
    )
    check(args)
    return args


def check(args: PlanArgs) -> None:
    """Refuse the flags of ARGS that do not go together, before anything is read."""
    if not args.refresh_only:
        return
    for flag, given in (("--destroy", args.destroy), ("--replace", args.replace)):
        if given:
            raise PlanError(f"--refresh-only cannot be combined with {flag}")
    if args.out is not None:
        raise PlanError(
            "--refresh-only cannot be combined with --out",
            hint="`planner apply --refresh-only` records the drift into the state",
        )
