"""`planner import --from-terraform FILE`: adopt the deployments a Terraform state manages.

Steps, in an order that writes nothing until every deployment is checked:
1. read FILE (`planner.config.terraform_state`): its managed `langsmith_deployment`
   instances, by id; with `--generate-config CONFIG`, refuse an existing CONFIG (without
   `--force`) before any request;
2. read each by id (`ceil(N/100)` requests) and refuse, naming FILE and the resource, an
   id the control plane does not have, a deployment whose name is not the state's, one
   being deleted, two of one name, and one a state the planner can see records already
   (`-c`'s, the states beside it, and CONFIG's);
3. with `--generate-config CONFIG`: CONFIG declares them as the Terraform state does (the
   provider's attributes are the wire fields: `planner.plan.adopt.generated_config` writes
   them in the words `-c` writes, else the server's), every environment variable read
   from the environment; it is loaded by the real loader, written, and the deployments
   recorded in its own state, as `import --all` does (`planner.cli.import_all`, whose
   steps 3, 5 and 6 these are). Without it: each must be a deployment of `-c`'s config,
   and they are recorded in its state under one lock, as `planner import NAME ID` does.

No environment value is copied out of FILE: the records and the generated config are made
from the live deployments (`planner.plan.record_builders.observed_record`) and the
Terraform state's declared fields only. Nothing changes remotely.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, is_being_deleted
from planner.cli.endpoint import open_client
from planner.cli.import_all import (
    AdoptFrom,
    adopting_spelling,
    check_target,
    file_state,
    read_source,
    refuse_duplicate_names,
    refuse_managing_state,
    refuse_sharing_state,
    write_and_record,
)
from planner.cli.options import ImportAllOptions, WorkspaceOptions
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.config.desired import DesiredDeployment
from planner.config.terraform_state import TerraformDeployment, read_terraform_state
from planner.errors import StateError, TerraformStateError
from planner.plan.adopt import generated_config
from planner.plan.record_builders import observed_record
from planner.render.import_view import Adopted, FromTerraform
from planner.state.document import adopt
from planner.state.endpoints import target_text


def run_import_terraform(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    state_file: str,
    environ: Mapping[str, str],
) -> FromTerraform:
    """Adopt every deployment of the Terraform state at STATE_FILE (see the module)."""
    path = Path(state_file)
    found = read_terraform_state(path)
    if options.generate_config:
        file = check_target(options.generate_config, options.force)
        source = read_source(resolve_target(workspace, environ), file, environ)
        adopted = asyncio.run(
            adopt_generated(workspace, options, path, found, file, source, environ)
        )
    else:
        target = resolve_target(workspace, environ)
        adopted = asyncio.run(adopt_declared(target, options, path, found))
    return FromTerraform(
        path,
        adopted,
        [deployment.address for deployment in found],
        [deployment.address for deployment in found if deployment.has_values_in_clear],
        {d.address: names for d in found if (names := d.left_out())},
        config_written=bool(options.generate_config),
    )


async def adopt_generated(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    path: Path,
    found: list[TerraformDeployment],
    file: Path,
    source: AdoptFrom,
    environ: Mapping[str, str],
) -> Adopted:
    """Write FILE declaring FOUND as the Terraform state does; record them in its state."""
    async with open_client(source.target.endpoint) as client:
        live = await read_live(client, found, path)
        spelling = adopting_spelling(source, client)
    refuse_duplicate_names(live)
    into = file_state(workspace, source, file, environ)
    backend = into.state.open()
    try:
        owners = {**backend.managed_elsewhere(file.stem), **source.owners}
    finally:
        backend.close()
    refuse_owned(found, owners, path)
    refuse_declared(found, source, path)
    refuse_managing_state(into.state.open(), file)
    refuse_sharing_state(source, into.state, file, environ)
    declared = [tf.declared(deployment, path) for tf, deployment in zip(found, live, strict=True)]
    generated = generated_config(declared, spelling)
    header = (
        "Written by `planner import --from-terraform`: the deployments of the Terraform "
        f"state {_relative_to(path, file.parent)}, adopted."
    )
    return await write_and_record(
        workspace, options, source, into, live, generated, environ, header=header
    )


def _relative_to(path: Path, folder: Path) -> str:
    """PATH as seen from FOLDER (`../terraform.tfstate`); absolute when no relative path
    leads there (another drive)."""
    try:
        return Path(os.path.relpath(path.resolve(), folder.resolve())).as_posix()
    except ValueError:
        return str(path.resolve())


async def adopt_declared(
    target: Target, options: ImportAllOptions, path: Path, found: list[TerraformDeployment]
) -> Adopted:
    """Record FOUND in `-c`'s state, each as the deployment of its config of that name."""
    async with Workspace.open(target) as ws:
        live = await read_live(ws.client, found, path)
        refuse_owned(found, ws.backend.managed_elsewhere(ws.config.path.stem), path)
        desired = declared_by_name(ws.config.deployments.values(), found, target.config_path)
        with ws.lock("import", options.lock_timeout, options.lock_lease):
            doc = ws.read_state()
            await ws.adopt_interrupted(doc)
            here = {recorded.id: ws.backend.location for recorded in doc.deployments.values()}
            refuse_owned(found, here, path)
            key = ws.digest_key(doc)
            adopt(doc, *(observed_record(desired[d.name], d, key) for d in live))
            ws.backend.write(doc)
        names = sorted(desired[d.name].name for d in live)
        return Adopted(target.config_path, ws.backend.location, names, [], [])


def declared_by_name(
    deployments: Iterable[DesiredDeployment], found: list[TerraformDeployment], config: Path
) -> dict[str, DesiredDeployment]:
    """The config's deployment of each name FOUND holds (its remote name); a StateError
    naming those the config does not declare."""
    by_name = {d.api_name: d for d in deployments}
    missing = [tf for tf in found if tf.name not in by_name]
    if missing:
        listed = ", ".join(f"{tf.name} ({tf.address})" for tf in missing)
        raise StateError(
            f"{config} does not declare {listed}",
            hint="declare them in the config first, or write a config declaring every "
            "deployment of the Terraform state with --generate-config FILE",
        )
    return {tf.name: by_name[tf.name] for tf in found}


async def read_live(
    client: ControlPlaneClient, found: list[TerraformDeployment], path: Path
) -> list[Deployment]:
    """The live deployment of each of FOUND, in its order; a TerraformStateError naming
    PATH and the resource for one the control plane does not have (or not as the state
    says: another name, being deleted)."""
    by_id = await client.get_deployments_by_ids(tf.id for tf in found)
    where = target_text(client.endpoint, client.tenant_id)
    for tf in found:
        live = by_id.get(tf.id)
        if live is None:
            raise TerraformStateError(
                f"{path}: {tf.address}: no deployment {tf.id} ({tf.name}) on {where}",
                hint=workspace_hint(tf, client.tenant_id),
            )
        if live.name != tf.name:
            raise TerraformStateError(
                f"{path}: {tf.address}: deployment {tf.id} is named {live.name!r} on the "
                f"control plane, not {tf.name!r} as the Terraform state says",
                hint="refresh the Terraform state first (`terraform apply -refresh-only`)",
            )
        if is_being_deleted(live.status):
            raise TerraformStateError(f"{path}: {tf.address}: deployment {tf.id} is being deleted")
    return [by_id[tf.id] for tf in found]


def workspace_hint(tf: TerraformDeployment, tenant_id: str | None) -> str:
    """Where to look for a deployment the control plane does not have."""
    if tf.tenant_id and tf.tenant_id != tenant_id:
        return (
            f"the Terraform state puts it in workspace {tf.tenant_id}: set PLANNER_TENANT_ID "
            "(or [control_plane] tenant_id) and the URL of the control plane it runs on"
        )
    return "refresh the Terraform state (`terraform apply -refresh-only` drops what is gone)"


def refuse_owned(found: list[TerraformDeployment], owners: Mapping[str, str], path: Path) -> None:
    """A StateError for the first of FOUND a state of the planner records (OWNERS: id ->
    that state): one deployment has one owner."""
    for tf in found:
        owner = owners.get(tf.id)
        if owner is not None:
            raise StateError(
                f"{path}: {tf.address} (deployment {tf.id}, {tf.name}) is already managed "
                f"by the state {owner}",
                hint="one deployment has one owner: leave it to that state (and "
                "`terraform state rm` it), or `planner state rm` it there first",
            )


def refuse_declared(found: list[TerraformDeployment], source: AdoptFrom, path: Path) -> None:
    """`-c`'s config may not declare one of FOUND while another config adopts it: its
    plan would create it a second time."""
    for tf in found:
        if tf.name in source.declared:
            config = source.target.config_path
            raise StateError(
                f"{path}: {tf.address} ({tf.name}) is declared in {config}: a config of "
                "its own would manage it twice",
                hint=f"import it into {config}: leave out --generate-config",
            )
