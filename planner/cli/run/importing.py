"""`planner import NAME DEPLOYMENT_ID`: adopt an existing deployment into the state (with
`--all`: every unmanaged one, `planner.cli.import_all`; with `--from-terraform`: those of
a Terraform state, `planner.cli.import_terraform`).

NAME must be a deployment of the config and the remote deployment must carry its name (the
table key, or the `name` its table gives).
The record holds the deployment's OBSERVED values of the fields the config sets (and the
digests of its secrets when the config manages secrets), so the next `planner plan`
shows exactly how the live deployment differs from the config. Nothing changes remotely.
"""

from __future__ import annotations

import asyncio
import os

from planner.api.errors import NotFoundError
from planner.api.models import Deployment
from planner.cli.commands.importing import ImportArgs
from planner.cli.import_all import run_import_all
from planner.cli.import_terraform import run_import_terraform
from planner.cli.options import ImportAllOptions, WorkspaceOptions
from planner.cli.prompt import confirm
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.command_lines import suggested_command
from planner.errors import PlannerError, StateError
from planner.plan.adopt import check_adoptable
from planner.plan.elsewhere import check_not_owned_elsewhere
from planner.plan.record_builders import observed_record
from planner.render.console import make_console
from planner.render.import_view import (
    Proposal,
    adopted_lines,
    from_terraform_lines,
    from_terraform_warnings,
    proposal_lines,
)
from planner.render.output import write_lines, write_warnings
from planner.state.document import adopt
from planner.state.endpoints import target_text
from planner.state.records import RecordedDeployment


def run(args: ImportArgs) -> int:
    if args.adopt_all:
        return run_all(args.workspace, args.options)
    if args.from_terraform is not None:
        return run_from_terraform(args.workspace, args.options, args.from_terraform)
    assert args.name and args.deployment_id  # parse: NAME and DEPLOYMENT_ID without --all
    workspace, options = args.workspace, args.options
    target = resolve_target(workspace, os.environ)
    imported = asyncio.run(import_deployment(target, args.name, args.deployment_id, options))
    recorded, location = imported
    plan_command = suggested_command("plan", command_args=workspace.command_args(os.environ))
    write_lines(
        make_console(),
        [
            f"Imported {recorded.name} (deployment {recorded.id}) into the state {location}.",
            "Nothing was changed on the control plane.",
            f"Run `{plan_command}` to see how it differs from the config.",
        ],
    )
    return 0


def run_all(workspace: WorkspaceOptions, options: ImportAllOptions) -> int:
    """`--all`: list what would be adopted, confirm, adopt; say what was."""
    console = make_console()

    def approve(proposal: Proposal) -> None:
        write_lines(console, proposal_lines(proposal, workspace.config))
        confirm(options.auto_approve, "import --all")

    adopted = run_import_all(workspace, options, os.environ, approve)
    env = workspace.environment(os.environ)
    write_lines(console, adopted_lines(adopted, workspace.config, env))
    return 0


def run_from_terraform(workspace: WorkspaceOptions, options: ImportAllOptions, state: str) -> int:
    """`--from-terraform STATE`: adopt, warn, say how Terraform lets go of them."""
    done = run_import_terraform(workspace, options, state, os.environ)
    write_warnings(from_terraform_warnings(done))
    if options.generate_config:
        env = workspace.environment(os.environ)
        plan_args = ("-c", str(done.adopted.config_path), *(("--env", env) if env else ()))
    else:
        plan_args = workspace.command_args(os.environ)
    write_lines(make_console(), from_terraform_lines(done, plan_args))
    return 0


async def import_deployment(
    target: Target, name: str, deployment_id: str, options: ImportAllOptions
) -> tuple[RecordedDeployment, str]:
    """Record DEPLOYMENT_ID as NAME (after adopting what an interrupted apply created)."""
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
    try:
        return await ws.client.get_deployment(deployment_id)
    except NotFoundError:
        raise PlannerError(
            f"no deployment {deployment_id} on {target_text(ws.endpoint, ws.tenant_id)}",
            hint="check the id (`planner state list` shows the managed ones); "
            "PLANNER_TENANT_ID selects the workspace",
        ) from None
