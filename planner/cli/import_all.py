"""`planner import --all --generate-config FILE`: adopt every unmanaged deployment at once.

Steps, in an order that never leaves a state managing what no config declares:
1. refuse an existing FILE (without `--force`) before any request;
2. list the workspace's deployments (`ceil(N/100)` requests; `--name-contains` filters on
   the server) and keep those no state of `-c` manages and its config does not declare;
3. resolve FILE's state and refuse one that manages deployments already (the new config
   would plan to delete them), or that `-c`'s own commands use too;
4. show what is about to be adopted and ask (`approve`: the planner cannot see every
   state, so a deployment it calls unmanaged may be another state's);
5. generate the config (`planner.plan.adopt`, pure; in the words `-c`'s config writes,
   else the server's), load it through the real loader (with the observed secret values
   as its environment), write FILE;
6. record every adopted deployment in FILE's state.

The endpoint, workspace and state are those `-c` (its environment with `--env`) resolves
to (`planner.cli.target.resolve_target`), or the flags and PLANNER_* variables when there
is no config yet. FILE gets them as its `[control_plane]` (with `--env E`:
`[environments.E.control_plane]`, so `-c FILE --env E` plans it) and as its `[state] url`
a state of its own where the folder keeps its states: beside `-c`'s `[state] url` file
(`<FILE stem>[.E].state.json`), in the database of a PostgreSQL URL without its password
(FILE's stem names its state there), or the state `--state` names; a file path relative
to FILE's folder. A state `-c` uses too (a file $PLANNER_STATE names) is refused: `-c`'s
plans would delete what FILE adopts. With none of them, FILE's own state beside it.
Nothing changes remotely; no secret value and no password is written anywhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from planner.api.auth import display_url
from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, Source
from planner.api.rules import Mode
from planner.api.vocabulary import SEED_SPELLING, Dialect, Spelling
from planner.cli.endpoint import open_client
from planner.cli.options import ImportAllOptions, WorkspaceOptions
from planner.cli.target import (
    StateLocation,
    Target,
    default_state_dir,
    resolve_state,
    resolve_target,
)
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
from planner.plan.record_builders import observed_record
from planner.render.config_view import render_generated_config
from planner.render.import_view import Adopted, Proposal
from planner.secrets import redact_url, url_has_password, url_without_password
from planner.state.backend import StateBackend
from planner.state.document import adopt
from planner.state.localfile import write_atomic
from planner.state.location import STATE_ENV, STATE_SUFFIX, is_postgres_url

Approve = Callable[[Proposal], None]  # sees what is about to be adopted; raises to stop


@dataclass
class AdoptFrom:
    """Where to adopt from: the target of `-c` and what its config and state hold."""

    target: Target
    managed_ids: set[str]
    declared: set[str]
    mode: Mode | None = None
    spelling: Spelling = SEED_SPELLING  # how its config writes the dialects' words
    owners: dict[str, str] = field(default_factory=dict)  # managed id -> the state recording it


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
        owners = backend.managed_elsewhere(path.stem)  # other states of this config
        if state is not None:
            owners |= {recorded.id: backend.location for recorded in state.deployments.values()}
    finally:
        backend.close()
    declared = set() if file.resolve() == path.resolve() else set(config.deployments)
    mode = config.control_plane.mode
    spelling = config.spelling
    return AdoptFrom(source, set(owners), declared, mode=mode, spelling=spelling, owners=owners)


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


def generated_state_table(
    source: Target, flag: str | None, given: str | None, file: Path
) -> StateConfig:
    """FILE's `[state]`, so that `planner plan -c FILE` reads the state the records go to
    with nothing else given: the file `--state` (FLAG) names; else a state of FILE's own
    where the folder keeps its states: a PostgreSQL URL (GIVEN by $PLANNER_STATE, or
    `-c`'s `[state] url`) without its password, with `-c`'s schema (FILE's stem names its
    state there); a file $PLANNER_STATE names (shared: refused while a config uses it);
    beside `-c`'s `[state] url` file, named after FILE's stem. A file path is written
    relative to FILE's folder. None of them: no table, FILE's own state beside it."""
    table = source.state_table
    if not (flag or given or table.url):
        return StateConfig()
    location = source.state.location  # --state, $PLANNER_STATE or `-c`'s url, resolved
    if is_postgres_url(location):
        url = url_without_password(location)
        return StateConfig.model_validate({"url": url, "schema": table.schema_})
    if not (flag or given):  # `-c`'s file: FILE's own beside it, never that one
        environment = f".{source.environment}" if source.environment else ""
        location = str(Path(location).parent / f"{file.stem}{environment}{STATE_SUFFIX}")
    if not Path(location).is_absolute():
        location = os.path.relpath(location, file.parent)
    return StateConfig.model_validate({"url": location})


def file_state(
    workspace: WorkspaceOptions, source: AdoptFrom, file: Path, environ: Mapping[str, str]
) -> FileState:
    """FILE's `[state]` table and the state it resolves to (where the records go)."""
    target = source.target
    table = generated_state_table(target, workspace.state, environ.get(STATE_ENV), file)
    state = resolve_state(
        workspace.state, table, file, environ, target.environment, default_state_dir(file, environ)
    )
    return FileState(file, table, state)


def refuse_sharing_state(
    source: AdoptFrom, state: StateLocation, file: Path, environ: Mapping[str, str]
) -> None:
    """STATE may not be the one `-c`'s own commands use (without this run's --state): `-c`'s
    plans would delete what FILE adopts (FILE replacing `-c` itself is allowed)."""
    target = source.target
    if target.raw is None or file.resolve() == target.config_path.resolve():
        return
    own = resolve_state(
        None, target.state_table, target.config_path, environ, target.environment, target.state_dir
    )
    if not is_same_state(state, own):
        return
    config, where = target.config_path, redact_url(state.location)
    raise StateError(
        f"{config} uses the state {where} too: adopting deployments into it would make "
        f"`planner plan` of {config} delete them",
        hint="give the adopted deployments a state of their own with --state PATH (written "
        f"into the new config), or declare them in {config} and adopt each with "
        "`planner import NAME ID`",
    )


def is_same_state(one: StateLocation, other: StateLocation) -> bool:
    """Whether ONE and OTHER are one state: one file, or one name in one database schema."""
    if is_postgres_url(one.location) or is_postgres_url(other.location):
        key = (url_without_password(one.location), one.name, one.schema)
        return key == (url_without_password(other.location), other.name, other.schema)
    return Path(one.location).resolve() == Path(other.location).resolve()


def run_import_all(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    environ: Mapping[str, str],
    approve: Approve,
) -> Adopted:
    """Adopt every unmanaged deployment (see the module's steps); APPROVE sees what is
    about to be adopted before anything is written (it raises to stop)."""
    file = check_target(options.generate_config or "", options.force)
    source = read_source(resolve_target(workspace, environ), file, environ)
    return asyncio.run(adopt_all(workspace, options, file, source, environ, approve))


async def adopt_all(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    file: Path,
    source: AdoptFrom,
    environ: Mapping[str, str],
    approve: Approve,
) -> Adopted:
    async with open_client(source.target.endpoint) as client:
        observed, skipped = await list_unmanaged(client, source, options.name_contains)
        spelling = adopting_spelling(source, client)
    if not observed:
        return Adopted(file, "", [], [], skipped)
    refuse_duplicate_names(observed)
    into = file_state(workspace, source, file, environ)
    location = refuse_managing_state(into.state.open(), file)
    refuse_sharing_state(source, into.state, file, environ)
    approve(Proposal(file, location, sorted(observed, key=lambda d: d.name), skipped))
    generated = generated_config(observed, spelling)
    adopted = await write_and_record(workspace, options, source, into, observed, generated, environ)
    adopted.skipped = skipped
    return adopted


def adopting_spelling(source: AdoptFrom, client: ControlPlaneClient) -> Spelling:
    """The words of the config that adopts them, else those of the server they run on
    (known once the client made a request)."""
    if source.spelling.written:
        return source.spelling
    return Spelling.leaning_to(client.dialect or Dialect.SEED)


@dataclass(frozen=True)
class FileState:
    """FILE, its `[state]` table and the state that table resolves to."""

    file: Path
    table: StateConfig
    state: StateLocation


async def write_and_record(
    workspace: WorkspaceOptions,
    options: ImportAllOptions,
    source: AdoptFrom,
    into: FileState,
    observed: list[Deployment],
    generated: GeneratedConfig,
    environ: Mapping[str, str],
    header: str | None = None,
) -> Adopted:
    """Write GENERATED as FILE (checked by the real loader first; HEADER: its first
    comment, by default `import --all`'s), then record OBSERVED (the live deployments
    it declares) in FILE's state."""
    file, environment = into.file, source.target.environment
    plane = generated_control_plane(source, observed)
    state_table = into.table.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    text = render_generated_config(generated, plane, environment, state=state_table, header=header)
    config = checked_config(file, text, generated, environment)
    target = resolve_target(replace(workspace, config=str(file), var=()), environ)
    async with Workspace.for_config(config, target) as ws:
        location = record_adopted(ws, observed, options, file)
    names = sorted(d.name for d in observed)
    left_out = url_has_password(into.state.location)  # FILE names the URL without it
    return Adopted(file, location, names, generated.variables, [], left_out)


def refuse_duplicate_names(observed: list[Deployment]) -> None:
    """A config names each deployment once: OBSERVED may not hold a name twice."""
    duplicates = duplicate_names(observed)
    if duplicates:
        raise PlannerError(
            f"several deployments share a name: {', '.join(duplicates)}",
            hint="a config names each deployment once: narrow the import with --name-contains",
        )


def refuse_managing_state(backend: StateBackend, file: Path) -> str:
    """FILE's state must manage nothing yet: the new config would plan to delete it (its
    location, as people read it)."""
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
    return backend.location


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
