"""The arguments of `planner promote`: the two environments (two different names), the
deployments (`--only`), whether to write the file, and where the plan of `--to` is made
(state and endpoint, as `planner plan` takes them)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_endpoint_options,
    add_format_option,
    add_state_option,
)
from planner.errors import PromotionError


@dataclass(frozen=True)
class PromoteArgs:
    """What `planner promote` was given: FROM is `--from`, TO `--to`."""

    workspace: WorkspaceOptions
    from_env: str
    to_env: str
    only: tuple[str, ...] = ()
    write: bool = False
    format: str = "text"


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "promote",
        parents=parents,
        help="write one environment's revision values into another's config",
        description="Write the revision-level values (source_revision_config: the image, "
        "the ref, the paths) that --from resolves to into the config where --to's values "
        "come from (its [environments.<to>] overlay or variable values), keeping the "
        "file's comments, order and layout. Without --write it prints the diff of the "
        "file and the plan --to would then have, and writes nothing. Secrets are never "
        "promoted.",
    )
    parser.add_argument(
        "--from",
        dest="from_env",
        required=True,
        metavar="ENV",
        help="the environment whose revision values are promoted",
    )
    parser.add_argument(
        "--to",
        dest="to_env",
        required=True,
        metavar="ENV",
        help="the environment whose values the config gets (its plan is shown)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="promote only this deployment (repeatable; default: every deployment of both)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="edit the config file (atomically); without it, show the diff and the plan",
    )
    add_config_option(parser)
    add_state_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(parse=parse, run_module="promote")


def parse(namespace: argparse.Namespace) -> PromoteArgs:
    args = PromoteArgs(
        WorkspaceOptions.of(vars(namespace)),
        from_env=namespace.from_env,
        to_env=namespace.to_env,
        only=tuple(dict.fromkeys(namespace.only)),
        write=namespace.write,
        format=namespace.format,
    )
    if args.from_env == args.to_env:
        raise PromotionError(
            f"--from and --to are both {args.from_env}: nothing to promote",
            hint="name two environments of the config",
        )
    return args
