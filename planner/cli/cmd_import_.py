"""`planner import NAME DEPLOYMENT_ID`: adopt an existing deployment into the state.

NAME must be a deployment of the config and the remote deployment must carry its name (the
table key, or the `name` its table gives).
The record holds the deployment's OBSERVED values of the fields the config sets (and the
digests of its secrets when the config manages secrets), so the next `planner plan`
shows exactly how the live deployment differs from the config. Nothing changes remotely.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from planner.cli.options import (
    ImportAllOptions,
    WorkspaceOptions,
    add_lock_options,
    add_workspace_options,
)
from planner.errors import PlannerError, StateError

# The client, the engine and the state are imported where the import runs: parsing the
# command line (`planner import --help`) needs none of them.
if TYPE_CHECKING:
    from planner.api.models import Deployment
    from planner.cli.target import Target
    from planner.cli.workspace import Workspace
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
        help="with --all: write the config declaring them to FILE (with the [state] url "
        "they are recorded in: --state, else PLANNER_STATE, else the config's)",
    )
    parser.add_argument("--force", action="store_true", help="with --all: replace FILE")
    parser.add_argument(
        "--auto-approve",
        action="store_true",
        help="with --all: adopt without asking (it lists them and asks for `yes` on a "
        "terminal, and refuses without one)",
    )
    add_workspace_options(parser)
    add_lock_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from planner.cli.import_all import run_import_all
    from planner.cli.prompt import confirm
    from planner.cli.target import resolve_target
    from planner.command_lines import suggested_command
    from planner.render.console import make_console
    from planner.render.import_view import Proposal, adopted_lines, proposal_lines
    from planner.render.output import write_lines

    options = import_options(vars(args))
    check_arguments(args.all, args.name, args.deployment_id, options)
    workspace = WorkspaceOptions.of(vars(args))
    console = make_console()
    if args.all:

        def approve(proposal: Proposal) -> None:
            write_lines(console, proposal_lines(proposal, workspace.config))
            confirm(options.auto_approve, "import --all")

        adopted = run_import_all(workspace, options, os.environ, approve)
        env = workspace.environment(os.environ)
        write_lines(console, adopted_lines(adopted, workspace.config, env))
        return 0
    target = resolve_target(workspace, os.environ)
    imported = asyncio.run(import_deployment(target, args.name, args.deployment_id, options))
    recorded, location = imported
    plan_command = suggested_command("plan", command_args=workspace.command_args(os.environ))
    write_lines(
        console,
        [
            f"Imported {recorded.name} (deployment {recorded.id}) into the state {location}.",
            "Nothing was changed on the control plane.",
            f"Run `{plan_command}` to see how it differs from the config.",
        ],
    )
    return 0


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
            raise PlannerError(f"{flag} goes with --all")
    if not (name and deployment_id):
        raise PlannerError(
            "give NAME and DEPLOYMENT_ID, or --all --generate-config FILE",
            hint="planner import NAME DEPLOYMENT_ID",
        )


async def import_deployment(
    target: Target, name: str, deployment_id: str, options: ImportAllOptions
) -> tuple[RecordedDeployment, str]:
    """Record DEPLOYMENT_ID as NAME (after adopting what an interrupted apply created)."""
    from planner.cli.workspace import Workspace
    from planner.plan.adopt import check_adoptable
    from planner.plan.elsewhere import check_not_owned_elsewhere
    from planner.plan.record_builders import observed_record
    from planner.state.document import adopt

    async with Workspace.open(target) as ws:
        desired = ws.config.deployments.get(name)
        if desired is None:
            raise StateError(
                f"{name} is not a deployment of the config {target.config_path}",
                hint=f"add [deployments.{name}] to the config first (it declares: "
                + (", ".join(sorted(ws.config.deployments)) or "nothing")
                + "), or write its config with `planner import --all --name-contains "
                f"{name} --generate-config FILE`",
            )
        deployment = await fetch(ws, deployment_id)
        check_adoptable(desired.api_name, deployment)
        owners = ws.backend.managed_elsewhere(ws.config.path.stem)
        check_not_owned_elsewhere(name, deployment.id, owners)
        with ws.lock("import", options.lock_timeout, options.lock_lease):
            doc = ws.read_state()
            await ws.adopt_interrupted(doc)
            recorded = observed_record(desired, deployment, ws.digest_key(doc))
            adopt(doc, recorded)
            ws.backend.write(doc)
        return recorded, ws.backend.location


async def fetch(ws: Workspace, deployment_id: str) -> Deployment:
    from planner.api.errors import NotFoundError
    from planner.state.endpoints import target_text

    try:
        return await ws.client.get_deployment(deployment_id)
    except NotFoundError:
        raise PlannerError(
            f"no deployment {deployment_id} on {target_text(ws.endpoint, ws.tenant_id)}",
            hint="check the id (`planner state list` shows the managed ones); "
            "PLANNER_TENANT_ID selects the workspace",
        ) from None
