"""`planner import --all --generate-config FILE`: adopt every unmanaged deployment at once.

Steps, in an order that never leaves a state managing what no config declares:
1. refuse an existing FILE (without `--force`) before any request;
2. list the workspace's deployments (`ceil(N/100)` requests; `--name-contains` filters on
   the server) and keep those no state of `-c` manages and its config does not declare;
3. generate the config (`planner.plan.adopt`, pure; in the words `-c`'s config writes,
   else the server's), load it through the real loader (with the observed secret values
   as its environment), write FILE;
4. record every adopted deployment in FILE's own state (refused if that state already
   manages deployments: the new config would plan to delete them).

The endpoint, workspace and state are those `-c` (its environment with `--env`) resolves
to (`planner.cli.target.resolve_target`), or the flags and PLANNER_* variables when there
is no config yet. FILE gets them as its `[control_plane]` (with `--env E`:
`[environments.E.control_plane]`, so `-c FILE --env E` plans it). FILE's state is
resolved by the same rule as every command's: `--state`, $PLANNER_STATE, its `[state]`
(a PostgreSQL `[state] url` of `-c` is written into FILE, so FILE's state is in the same
database, named after FILE), else beside FILE. Nothing changes remotely; no secret value
is written anywhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from contextlib import aclosing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.api.auth import display_url
from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, Source
from planner.api.rules import Mode
from planner.api.vocabulary import SEED_SPELLING, Dialect, Spelling
from planner.cli.endpoint import open_client
from planner.cli.options import ImportAllOptions, WorkspaceOptions
from planner.cli.target import Target, default_state_dir, resolve_state, resolve_target
from planner.cli.workspace import Workspace
from planner.config import Config, load_config
from planner.config.models import StateConfig
from planner.config.secret_values import NotingMissing
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.errors import PlannerError, StateError
from planner.files import os_reason
from planner.plan.adopt import (
    GeneratedConfig,
    duplicate_names,
    generated_config,
    split_unmanaged,
)
from planner.plan.records import observed_record
from planner.render.config_view import render_generated_config
from planner.state.backend import StateBackend
from planner.state.document import adopt
from planner.state.localfile import write_atomic
from planner.state.location import STATE_ENV, is_postgres_url


@dataclass
class AdoptFrom:
    """Where to adopt from: the target of `-c` and what its config and state hold."""

    target: Target
    managed_ids: set[str]
    declared: set[str]
    mode: Mode | None = None
    spelling: Spelling = SEED_SPELLING  # how its config writes the dialects' words


@dataclass
class Adopted:
    """What `import --all` did: the file, the state, the names and the variables."""

    config_path: Path
    state_location: str
    names: list[str]
    variables: list[str]
    skipped: list[str]


def check_target(generate_config: str, force: bool) -> Path:
    """FILE, refused when it exists (unless --force) or is not a regular file."""
    target = Path(generate_config)
    if target.is_dir():
        raise PlannerError(f"--generate-config {target} is a directory")
    if target.suffix != ".toml":
        raise PlannerError(f"--generate-config {target}: the config is written as TOML (*.toml)")
    if target.exists() and not force:
        raise PlannerError(
            f"{target} exists: not overwriting it",
            hint="choose another --generate-config FILE, or add --force to replace it",
        )
    return target


def read_source(source: Target, file: Path, environ: Mapping[str, str]) -> AdoptFrom:
    """The `-c` config's managed ids (in its state, wherever it is) and declared names."""
    path = source.config_path
    if source.raw is None:
        return AdoptFrom(source, set(), set())
    config = load_config(
        path,
        environ=NotingMissing(environ),
        env=source.environment,
        variables=source.variables,
        raw=source.raw,
    )
    backend = source.state.open()
    try:
        state = backend.read()
        elsewhere = backend.managed_elsewhere(path.stem)  # other states of this config
    finally:
        backend.close()
    managed = {r.id for r in state.deployments.values()} if state else set()
    managed |= set(elsewhere)
    declared = set() if file.resolve() == path.resolve() else set(config.deployments)
    mode = config.control_plane.mode
    return AdoptFrom(source, managed, declared, mode=mode, spelling=config.spelling)


async def list_unmanaged(
    client: ControlPlaneClient, source: AdoptFrom, name_contains: str | None
) -> tuple[list[Deployment], list[str]]:
    """The live deployments to adopt, and the names skipped (declared by `-c`)."""
    filters = {"name_contains": name_contains} if name_contains else {}
    async with aclosing(client.iter_deployments(**filters)) as deployments:  # type: ignore[arg-type]
        listed = [deployment async for deployment in deployments]
    return split_unmanaged(listed, source.managed_ids, source.declared, name_contains)


def generated_control_plane(source: AdoptFrom, observed: list[Deployment]) -> dict[str, Any]:
    """FILE's control plane: the URL (no credentials) and workspace the listing used."""
    endpoint = source.target.endpoint
    plane: dict[str, Any] = {}
    if endpoint.base_url:
        plane["base_url"] = display_url(endpoint.base_url)
    # The embedded plane's default workspace is implied; any other one is written down.
    if endpoint.tenant_id and (endpoint.base_url or endpoint.tenant_id != DEFAULT_TENANT_ID):
        plane["tenant_id"] = endpoint.tenant_id
    if source.mode == Mode.SELF_HOSTED or any(d.source == Source.EXTERNAL_DOCKER for d in observed):
        plane["mode"] = "self-hosted"
    return plane


def generated_state_table(source: Target, given: str | None) -> StateConfig:
    """FILE's `[state]`: the PostgreSQL URL and schema of `-c` (FILE's stem names its own
    state there); a file state is FILE's own, beside it (no table). A state GIVEN by
    --state or $PLANNER_STATE is where the records go, and is given the same way to every
    later command: FILE names no URL then (`-c`'s would point elsewhere), only the schema."""
    table = source.state_table
    if given:
        return StateConfig.model_validate({"schema": table.schema_})
    if table.url is None or not is_postgres_url(table.url):
        return StateConfig()
    return StateConfig.model_validate({"url": table.url, "schema": table.schema_})


def run_import_all(
    workspace: WorkspaceOptions, options: ImportAllOptions, environ: Mapping[str, str]
) -> Adopted:
    file = check_target(options.generate_config or "", options.force)
    source = read_source(resolve_target(workspace, environ), file, environ)
    return asyncio.run(adopt_all(workspace, options, file, source, environ))


async def adopt_all(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    file: Path,
    source: AdoptFrom,
    environ: Mapping[str, str],
) -> Adopted:
    async with open_client(source.target.endpoint) as client:
        observed, skipped = await list_unmanaged(client, source, options.name_contains)
        # the words of the config that adopts them, else those of the server they run on
        spelling = source.spelling
        if not spelling.written:
            spelling = Spelling.leaning_to(client.dialect or Dialect.SEED)
    if not observed:
        return Adopted(file, "", [], [], skipped)
    duplicates = duplicate_names(observed)
    if duplicates:
        raise PlannerError(
            f"several deployments share a name: {', '.join(duplicates)}",
            hint="a config names each deployment once: narrow the import with --name-contains",
        )
    given = workspace.state or environ.get(STATE_ENV)
    environment, table = source.target.environment, generated_state_table(source.target, given)
    state = resolve_state(
        workspace.state, table, file, environ, environment, default_state_dir(file, environ)
    )
    refuse_managing_state(state.open(), file)
    generated = generated_config(observed, spelling)
    plane = generated_control_plane(source, observed)
    state_table = table.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    text = render_generated_config(generated, plane, environment, state=state_table)
    config = checked_config(file, text, generated, environment)
    target = resolve_target(replace(workspace, config=str(file), var=()), environ)
    async with Workspace.for_config(config, target) as ws:
        location = record_adopted(ws, observed, options, file)
    names = sorted(d.name for d in observed)
    return Adopted(file, location, names, generated.variables, skipped)


def refuse_managing_state(backend: StateBackend, file: Path) -> None:
    """FILE's state must manage nothing yet: the new config would plan to delete it."""
    try:
        doc = backend.read()
    finally:
        backend.close()
    if doc is not None and doc.deployments:
        raise StateError(
            f"the state {backend.location} already manages {len(doc.deployments)} deployments",
            hint=f"adopt into a new config (its own state): another --generate-config FILE than "
            f"{file}, or --state PATH",
        )


def checked_config(
    target: Path, text: str, generated: GeneratedConfig, environment: str | None
) -> Config:
    """TEXT loaded by the real loader (the observed secrets as its environment), then
    written to TARGET; a text that does not load is never written."""
    draft = target.with_name(f".{target.stem}.import-draft{target.suffix}")
    try:
        draft.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(draft, text)
        config = load_config(draft, environ=generated.environ, env=environment)
        os.replace(draft, target)
    except OSError as error:
        raise PlannerError(f"cannot write {target}: {os_reason(error)}") from None
    finally:
        draft.unlink(missing_ok=True)
    return config


def record_adopted(
    ws: Workspace, observed: list[Deployment], options: ImportAllOptions, target: Path
) -> str:
    """Record OBSERVED as FILE's deployments in its state (which must manage nothing yet)."""
    with ws.lock("import", options.lock_timeout, options.lock_lease):
        doc = ws.read_state()
        if doc.deployments:
            raise StateError(
                f"the state {ws.backend.location} was changed meanwhile; {target} was "
                "written but nothing was recorded",
                hint="run the import again with another --generate-config FILE",
            )
        key = ws.digest_key(doc)
        records = [
            observed_record(ws.config.deployments[deployment.name], deployment, key)
            for deployment in observed
        ]
        adopt(doc, *records)
        ws.backend.write(doc)
    return ws.backend.location


def adopted_lines(adopted: Adopted, source: WorkspaceOptions, env: str | None) -> list[str]:
    """What `import --all` tells: what it wrote, what is left to do (ENV: the environment)."""
    lines = []
    if adopted.skipped:
        lines.append(
            f"Left out, declared in {source.config} (adopt each with `planner import NAME ID`): "
            + ", ".join(adopted.skipped)
        )
    if not adopted.names:
        lines.append("No unmanaged deployment to adopt: nothing was written.")
        return lines
    count = len(adopted.names)
    lines.append(
        f"Adopted {count} deployment{'s' if count != 1 else ''} into the state "
        f"{adopted.state_location} and wrote {adopted.config_path}."
    )
    lines.append("Nothing was changed on the control plane.")
    if adopted.variables:
        lines.append(
            "Set these environment variables (the deployments' secrets) to plan: "
            + " ".join(adopted.variables)
        )
    plan = " ".join(["planner plan -c", str(adopted.config_path), *(["--env", env] if env else [])])
    lines.append(f"Then `{plan}` shows no changes.")
    return lines
