"""The arguments of `planner rollback NAME [--to REVISION_ID]`: the deployment, the
revision (default: the last one that reached DEPLOYED before the active one), and what
`apply` takes to confirm, wait and lock (no parallelism: one deployment)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    RunOptions,
    WorkspaceOptions,
    add_lock_options,
    add_wait_options,
    add_workspace_options,
)
from planner.errors import PlanError


@dataclass(frozen=True)
class RollbackArgs:
    """What `planner rollback` was given."""

    name: str
    workspace: WorkspaceOptions
    options: RunOptions
    to: str | None = None


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "rollback",
        parents=parents,
        help="redeploy an earlier revision of a deployment and hold it there",
        description="Redeploy an earlier revision of NAME (by default the last one that "
        "reached DEPLOYED before the active one), wait for it, and hold NAME there: plans "
        "and applies leave it alone until `planner release NAME`. The config is not edited.",
    )
    parser.add_argument("name", metavar="NAME", help="the deployment's name in the config")
    parser.add_argument(
        "--to",
        default=None,
        metavar="REVISION_ID",
        help="the revision to redeploy (`planner history NAME` lists them)",
    )
    add_workspace_options(parser)
    parser.add_argument(
        "--auto-approve", action="store_true", help="roll back without asking for confirmation"
    )
    add_wait_options(parser, "the revision", "the revision")
    add_lock_options(parser)
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text, or json: one JSON document on stdout once done (schemas/rollback.schema.json)",
    )
    parser.set_defaults(parse=parse, run_module="rollback", parallelism=1)


def parse(namespace: argparse.Namespace) -> RollbackArgs:
    given = vars(namespace)
    args = RollbackArgs(
        namespace.name, WorkspaceOptions.of(given), RunOptions.of(given), to=namespace.to
    )
    check(args)
    return args


def check(args: RollbackArgs) -> None:
    """Refuse an empty NAME or `--to`."""
    if not args.name:
        raise PlanError("rollback needs the NAME of a deployment")
    if args.to is not None and not args.to.strip():
        raise PlanError("--to needs a revision id (`planner history NAME` lists them)")
