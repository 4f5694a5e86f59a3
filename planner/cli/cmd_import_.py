"""`planner import NAME DEPLOYMENT_ID`: adopt an existing deployment into the state.

NAME must be a deployment of the config and the remote deployment must carry its name (the
table key, or the `name` its table gives).
The record holds the deployment's OBSERVED values of the fields the config sets (and the
digests of its secrets when the config manages secrets), so the next `planner plan`
shows exactly how the live deployment differs from the config. Nothing changes remotely.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from planner.api.errors import NotFoundError
from planner.api.models import Deployment, DeploymentStatus
from planner.cli.common import (
    add_lock_timeout_option,
    add_workspace_options,
    repeated_args,
)
from planner.cli.import_all import Adopted, adopted_lines, run_import_all
from planner.cli.workspace import Workspace
from planner.errors import PlannerError, StateError
from planner.plan.model import suggested_command
from planner.plan.refresh import observed_record
from planner.render.console import make_console
from planner.state.document import adopt
from planner.state.endpoints import target_text
from planner.state.records import RecordedDeployment


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "import",
        parents=parents,
        help="adopt existing deployments into the state (one, or --all)",
        description="Start managing an existing deployment: record it in the state under "
        "NAME (a deployment of the config). With --all --generate-config FILE: write a "
        "config declaring every unmanaged deployment of the workspace and record them in "
        "its state. Nothing changes remotely.",
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
        "--name-contains", metavar="TEXT", help="with --all: only names containing TEXT"
    )
    parser.add_argument(
        "--generate-config",
        metavar="FILE",
        help="with --all: write the config declaring them to FILE (its own state)",
    )
    parser.add_argument("--force", action="store_true", help="with --all: replace FILE")
    add_workspace_options(parser)
    add_lock_timeout_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    check_arguments(args)
    if args.all:
        report_adopted(run_import_all(args), args)
        return 0
    recorded, location = asyncio.run(import_deployment(args))
    plan_command = suggested_command("plan", command_args=repeated_args(args))
    console = make_console()
    for line in (
        f"Imported {recorded.name} (deployment {recorded.id}) into the state {location}.",
        "Nothing was changed on the control plane.",
        f"Run `{plan_command}` to see how it differs from the config.",
    ):
        console.print(line, markup=False)
    return 0


def check_arguments(args: argparse.Namespace) -> None:
    """Either NAME DEPLOYMENT_ID, or --all --generate-config FILE."""
    if args.all:
        if args.name or args.deployment_id:
            raise PlannerError("--all adopts every unmanaged deployment: give no NAME or ID")
        if not args.generate_config:
            raise PlannerError(
                "--all needs --generate-config FILE (the config it writes)",
                hint="planner import --all --generate-config planner.toml",
            )
        return
    for flag, value in (
        ("--generate-config", args.generate_config),
        ("--name-contains", args.name_contains),
        ("--force", args.force),
    ):
        if value:
            raise PlannerError(f"{flag} goes with --all")
    if not (args.name and args.deployment_id):
        raise PlannerError(
            "give NAME and DEPLOYMENT_ID, or --all --generate-config FILE",
            hint="planner import NAME DEPLOYMENT_ID",
        )


def report_adopted(adopted: Adopted, args: argparse.Namespace) -> None:
    console = make_console()
    for line in adopted_lines(adopted, args):
        console.print(line, markup=False)


async def import_deployment(args: argparse.Namespace) -> tuple[RecordedDeployment, str]:
    async with Workspace.from_args(args) as ws:
        desired = ws.config.deployments.get(args.name)
        if desired is None:
            raise StateError(
                f"{args.name} is not a deployment of the config {args.config}",
                hint=f"add [deployments.{args.name}] to the config first (it declares: "
                + (", ".join(sorted(ws.config.deployments)) or "nothing")
                + "), or write its config with `planner import --all --name-contains "
                f"{args.name} --generate-config FILE`",
            )
        deployment = await fetch(ws, args.deployment_id)
        check_adoptable(desired.api_name, deployment)
        with ws.lock("import", timeout=args.lock_timeout):
            doc = ws.read_state()
            recorded = observed_record(desired, deployment, ws.digest_key(doc))
            adopt(doc, recorded)
            ws.backend.write(doc)
        return recorded, ws.backend.location


async def fetch(ws: Workspace, deployment_id: str) -> Deployment:
    try:
        return await ws.client.get_deployment(deployment_id)
    except NotFoundError:
        raise PlannerError(
            f"no deployment {deployment_id} on {target_text(ws.endpoint, ws.tenant_id)}",
            hint="check the id (`planner state list` shows the managed ones); "
            "PLANNER_TENANT_ID selects the workspace",
        ) from None


def check_adoptable(name: str, deployment: Deployment) -> None:
    if deployment.name != name:
        raise StateError(
            f"deployment {deployment.id} is named {deployment.name!r}, not {name!r}",
            hint=f"names cannot change: import it under its own name "
            f"(`planner import {deployment.name} {deployment.id}`, with "
            f'[deployments.{deployment.name}] in the config, or `name = "{deployment.name}"` '
            "in the deployment's table)",
        )
    if deployment.status == DeploymentStatus.AWAITING_DELETE:
        raise StateError(f"deployment {deployment.id} ({name}) is being deleted")
