"""`planner import --all --generate-config FILE`: adopt every unmanaged deployment at once.

Steps, in an order that never leaves a state managing what no config declares:
1. refuse an existing FILE (without `--force`) before any request;
2. list the workspace's deployments (`ceil(N/100)` requests; `--name-contains` filters on
   the server) and keep those no state of `-c` manages and its config does not declare;
3. generate the config (`planner.plan.adopt`, pure), load it through the real loader
   (with the observed secret values as its environment), write FILE;
4. record every adopted deployment in FILE's own state (refused if that state already
   manages deployments: the new config would plan to delete them).

The endpoint and workspace are those `-c` (its environment with `--env`) resolves to, or
the flags and PLANNER_* variables when there is no config yet. FILE gets them as its
`[control_plane]` (with `--env E`: `[environments.E.control_plane]`, so `-c FILE --env E`
plans it). Nothing changes remotely; no secret value is written anywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.api.auth import display_url
from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, DeploymentStatus, Source
from planner.cli.common import environment_from, variables_from
from planner.cli.endpoint import open_client, resolve_endpoint, state_dir_from
from planner.cli.workspace import Workspace
from planner.config import Config, load_config
from planner.config.secret_values import NotingMissing
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.errors import PlannerError, StateError
from planner.files import os_reason
from planner.plan.adopt import GeneratedConfig, adoptable, duplicate_names, generated_config
from planner.plan.refresh import observed_record
from planner.render.config_view import render_generated_config
from planner.state.document import adopt
from planner.state.localfile import LocalFileBackend, write_atomic
from planner.state.location import resolve_state_path


@dataclass
class AdoptFrom:
    """Where to adopt from: the control plane of `-c` (if it exists) and what it manages."""

    control_plane: dict[str, Any]
    managed_ids: set[str]
    declared: set[str]
    mode: str | None = None


@dataclass
class Adopted:
    """What `import --all` did: the file, the state, the names and the variables."""

    config_path: Path
    state_location: str
    names: list[str]
    variables: list[str]
    skipped: list[str]


def check_target(args: argparse.Namespace) -> Path:
    """FILE, refused when it exists (unless --force) or is not a regular file."""
    target = Path(args.generate_config)
    if target.is_dir():
        raise PlannerError(f"--generate-config {target} is a directory")
    if target.suffix != ".toml":
        raise PlannerError(f"--generate-config {target}: the config is written as TOML (*.toml)")
    if target.exists() and not args.force:
        raise PlannerError(
            f"{target} exists: not overwriting it",
            hint="choose another --generate-config FILE, or add --force to replace it",
        )
    return target


def read_source(args: argparse.Namespace, target: Path) -> AdoptFrom:
    """The `-c` config's control plane, managed ids and declared names (none without it)."""
    path = Path(args.config)
    if not path.is_file():
        return AdoptFrom({}, set(), set())
    environment = environment_from(args, os.environ)
    config = load_config(
        path, environ=NotingMissing(os.environ), env=environment, variables=variables_from(args)
    )
    backend = LocalFileBackend(resolve_state_path(None, path, environment=environment))
    state = backend.read()
    managed = {r.id for r in state.deployments.values()} if state else set()
    managed |= set(backend.managed_elsewhere(path.stem))  # MOVES (issue 19): other states'
    same_file = target.resolve() == path.resolve()
    declared = set() if same_file else set(config.deployments)
    plane = config.control_plane.model_dump(mode="json", exclude_none=True)
    return AdoptFrom(plane, managed, declared, mode=plane.pop("mode", None))


async def list_unmanaged(
    client: ControlPlaneClient, source: AdoptFrom, name_contains: str | None
) -> tuple[list[Deployment], list[str]]:
    """The live deployments to adopt, and the names skipped (declared by `-c`)."""
    filters = {"name_contains": name_contains} if name_contains else {}
    found: list[Deployment] = []
    async with aclosing(client.iter_deployments(**filters)) as deployments:  # type: ignore[arg-type]
        async for deployment in deployments:
            if deployment.status == DeploymentStatus.AWAITING_DELETE:
                continue
            if deployment.id not in source.managed_ids:
                found.append(deployment)
    skipped = sorted(d.name for d in found if d.name in source.declared)
    kept = adoptable((d for d in found if d.name not in source.declared), name_contains)
    return kept, skipped


def generated_control_plane(
    args: argparse.Namespace, source: AdoptFrom, observed: list[Deployment]
) -> dict[str, Any]:
    """FILE's control plane: the URL (no credentials) and workspace the listing used."""
    state_dir = state_dir_from(os.environ)
    resolved = resolve_endpoint(args.base_url, source.control_plane, os.environ, state_dir)
    plane: dict[str, Any] = {}
    if resolved.base_url:
        plane["base_url"] = display_url(resolved.base_url)
    # The embedded plane's default workspace is implied; any other one is written down.
    if resolved.tenant_id and (resolved.base_url or resolved.tenant_id != DEFAULT_TENANT_ID):
        plane["tenant_id"] = resolved.tenant_id
    if source.mode == "self-hosted" or any(d.source == Source.EXTERNAL_DOCKER for d in observed):
        plane["mode"] = "self-hosted"
    return plane


def run_import_all(args: argparse.Namespace) -> Adopted:
    target = check_target(args)
    source = read_source(args, target)
    return asyncio.run(adopt_all(args, target, source))


async def adopt_all(args: argparse.Namespace, target: Path, source: AdoptFrom) -> Adopted:
    state_dir = state_dir_from(os.environ)
    environment = environment_from(args, os.environ)
    async with open_client(args.base_url, source.control_plane, os.environ, state_dir) as client:
        observed, skipped = await list_unmanaged(client, source, args.name_contains)
    if not observed:
        return Adopted(target, "", [], [], skipped)
    duplicates = duplicate_names(observed)
    if duplicates:
        raise PlannerError(
            f"several deployments share a name: {', '.join(duplicates)}",
            hint="a config names each deployment once: narrow the import with --name-contains",
        )
    state_path = resolve_state_path(args.state, target, environment=environment)
    refuse_managing_state(state_path)
    generated = generated_config(observed)
    plane = generated_control_plane(args, source, observed)
    text = render_generated_config(generated, plane, environment)
    config = checked_config(target, text, generated, environment)
    async with Workspace.for_config(config, state_path=state_path, base_url=args.base_url) as ws:
        location = record_adopted(ws, observed, args.lock_timeout, target)
    names = sorted(d.name for d in observed)
    return Adopted(target, location, names, generated.variables, skipped)


def refuse_managing_state(state_path: Path) -> None:
    """FILE's state must manage nothing yet: the new config would plan to delete it."""
    doc = LocalFileBackend(state_path).read()
    if doc is not None and doc.deployments:
        raise StateError(
            f"the state {state_path} already manages {len(doc.deployments)} deployments",
            hint="adopt into a new config (its own state): another --generate-config FILE, "
            "or --state PATH",
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
    ws: Workspace, observed: list[Deployment], lock_timeout: float, target: Path
) -> str:
    """Record OBSERVED as FILE's deployments in its state (which must manage nothing yet)."""
    with ws.lock("import", timeout=lock_timeout):
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


def adopted_lines(adopted: Adopted, args: argparse.Namespace) -> list[str]:
    """What `import --all` tells: what it wrote, what is left to do."""
    lines = []
    if adopted.skipped:
        lines.append(
            f"Left out, declared in {args.config} (adopt each with `planner import NAME ID`): "
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
    env = environment_from(args, os.environ)
    plan = " ".join(["planner plan -c", str(adopted.config_path), *(["--env", env] if env else [])])
    lines.append(f"Then `{plan}` shows no changes.")
    return lines
