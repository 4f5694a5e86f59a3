"""The arguments of `planner import`, and the flags that go together: NAME DEPLOYMENT_ID,
or `--all --generate-config FILE` (with `--name-contains`, `--force` and
`--auto-approve`, which only `--all` takes), or `--from-terraform STATE` (with
`--generate-config FILE` and `--force`, or into `-c`'s config)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    ImportAllOptions,
    WorkspaceOptions,
    add_lock_options,
    add_workspace_options,
)
from planner.errors import PlannerError


@dataclass(frozen=True)
class ImportArgs:
    """What `planner import` was given, its flags checked against each other: NAME and
    DEPLOYMENT_ID (both given), or `adopt_all`, or `from_terraform` (a Terraform state)."""

    workspace: WorkspaceOptions
    options: ImportAllOptions
    name: str | None = None
    deployment_id: str | None = None
    adopt_all: bool = False
    from_terraform: str | None = None


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "import",
        parents=parents,
        help="adopt existing deployments into the state (one, or --all)",
        description="Start managing an existing deployment: record it in the state under "
        "NAME (a deployment of the config). With --all --generate-config FILE: write a "
        "config declaring every unmanaged deployment of the workspace and record them in "
        "its state. With --from-terraform STATE: adopt every langsmith_deployment of a "
        "Terraform state (into the config, or with --generate-config FILE into a config "
        "written as the Terraform state declares them) and print the `terraform state rm` "
        "lines that hand them over. Nothing changes remotely.",
    )
    parser.add_argument(
        "name", metavar="NAME", nargs="?", help="the deployment's name in the config"
    )
    parser.add_argument(
        "deployment_id", metavar="DEPLOYMENT_ID", nargs="?", help="its id on the server"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="adopt every unmanaged deployment of the workspace (with --generate-config)",
    )
    parser.add_argument(
        "--from-terraform",
        metavar="STATE",
        help="adopt every langsmith_deployment of this Terraform state (a state file of "
        "format version 4, or the output of `terraform show -json`); environment values "
        "are never copied from it",
    )
    parser.add_argument(
        "--name-contains", metavar="TEXT", help="with --all: only names containing TEXT"
    )
    parser.add_argument(
        "--generate-config",
        metavar="FILE",
        help="with --all or --from-terraform: write the config declaring them to FILE "
        "(with the [state] url they are recorded in: --state, else PLANNER_STATE, else "
        "the config's)",
    )
    parser.add_argument("--force", action="store_true", help="with --generate-config: replace FILE")
    parser.add_argument(
        "--auto-approve",
        action="store_true",
        help="with --all: adopt without asking (it lists them and asks for `yes` on a "
        "terminal, and refuses without one)",
    )
    add_workspace_options(parser)
    add_lock_options(parser)
    parser.set_defaults(parse=parse, run_module="importing")


def parse(namespace: argparse.Namespace) -> ImportArgs:
    given = vars(namespace)
    options = import_options(given)
    from_terraform = namespace.from_terraform
    if from_terraform is not None:
        check_terraform_arguments(from_terraform, namespace.all, namespace.name, options)
    else:
        check_arguments(namespace.all, namespace.name, namespace.deployment_id, options)
    return ImportArgs(
        WorkspaceOptions.of(given),
        options,
        namespace.name,
        namespace.deployment_id,
        namespace.all,
        from_terraform,
    )


def import_options(given: Mapping[str, Any]) -> ImportAllOptions:
    """The options of `import` beyond the workspace, from GIVEN (a parsed command line, by
    dest name); the lock's are a single import's too."""
    return ImportAllOptions(
        given["generate_config"],
        given["name_contains"],
        given["force"],
        given["lock_timeout"],
        given["lock_lease"],
        given["auto_approve"],
    )


def check_arguments(
    adopt_all: bool, name: str | None, deployment_id: str | None, options: ImportAllOptions
) -> None:
    """Either NAME DEPLOYMENT_ID, or --all --generate-config FILE."""
    if adopt_all:
        if name or deployment_id:
            raise PlannerError("--all adopts every unmanaged deployment: give no NAME or ID")
        if not options.generate_config:
            raise PlannerError(
                "--all needs --generate-config FILE (the config it writes)",
                hint="planner import --all --generate-config planner.toml",
            )
        return
    for flag, value in (
        ("--generate-config", options.generate_config),
        ("--name-contains", options.name_contains),
        ("--force", options.force),
        ("--auto-approve", options.auto_approve),
    ):
        if value:
            also = " or --from-terraform" if flag in TERRAFORM_FLAGS else ""
            raise PlannerError(f"{flag} goes with --all{also}")
    if not (name and deployment_id):
        raise PlannerError(
            "give NAME and DEPLOYMENT_ID, or --all --generate-config FILE",
            hint="planner import NAME DEPLOYMENT_ID",
        )


# The flags of `--all` that `--from-terraform` takes too.
TERRAFORM_FLAGS = ("--generate-config", "--force")


def check_terraform_arguments(
    from_terraform: str, adopt_all: bool, name: str | None, options: ImportAllOptions
) -> None:
    """--from-terraform STATE, alone or with --generate-config FILE (and --force)."""
    if not from_terraform:
        raise PlannerError("--from-terraform needs the path of a Terraform state")
    if adopt_all or name:
        what = "--all" if adopt_all else "NAME and DEPLOYMENT_ID"
        raise PlannerError(
            f"--from-terraform adopts the deployments of a Terraform state: give no {what}"
        )
    for flag, value in (
        ("--name-contains", options.name_contains),
        ("--auto-approve", options.auto_approve),
    ):
        if value:
            raise PlannerError(f"{flag} goes with --all, not --from-terraform")
    if options.force and not options.generate_config:
        raise PlannerError("--force replaces the --generate-config FILE: give one")
