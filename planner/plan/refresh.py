"""Refresh: read what the plan needs from the control plane, in as few requests as possible.

- Managed deployments (every recorded name) are read by id with the `deployment_ids`
  filter: `ceil(N/100)` list requests for N recorded deployments, never one GET each.
  A deployment in `AWAITING_DELETE` counts as gone (`None`): it is being deleted and
  cannot be brought back, so the plan treats it like one deleted outside the planner.
- Names the config wants to create are looked up by name: up to `NAME_LOOKUP_LIMIT`
  names, one `name_contains` lookup per name, concurrently; more than that, one paged
  listing of every deployment (`ceil(total/100)` requests) answers them all at once.
  A deployment being deleted (`AWAITING_DELETE`) does not count as existing.
- A recorded name whose deployment is gone but which the config still wants is looked up
  by name too: one re-created outside the planner lands in `unmanaged_existing`; so is
  the new remote name of a recorded deployment the config renames (a replace would
  create under it): a deployment holding it lands there too.
- A name is held only by a deployment the state does not record: a recorded one is the
  plan's to place (a move, or a name another address holds: `planner.plan.collisions`),
  by the listing and by the lookups alike, so plan and apply see the same.
- A name with a pending `create` intent in the state's journal (an apply stopped after
  sending the create, before recording it) that exists remotely lands in
  `pending_found`, not in `unmanaged_existing`: it was made by the planner, and the next
  plan and apply adopt it (`planner.plan.recovery.adopt_interrupted_creates`).
- Health: a managed (or pending-found) deployment whose latest and active revision
  differ (the list carries both ids) costs one more request, the read of its latest
  revision; converged ones cost nothing more.
- `whole_workspace=True` (a plan): ONE paged listing of every deployment of the
  workspace (`ceil((total + 1)/100)` requests: a listing ends on a short page) answers
  the managed ids, the names and the deployments no state manages (`unmanaged`) at once.
  The state says how many pages to expect: those are read `PAGES_IN_FLIGHT` at a time
  (through the client, so its shared 429 pause holds them all), the pages past them, if
  the workspace holds more, one after another; a deployment listed twice (the workspace
  changed between two pages) counts once, where it was first seen.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Collection, Coroutine, Iterable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from planner.api.client import PAGE_SIZE, ControlPlaneClient
from planner.api.models import SUCCESS_STATUSES, Deployment, is_being_deleted
from planner.plan.health import RevisionHealth, is_converged
from planner.plan.managed_fields import observed_doc, observed_secrets
from planner.plan.model import Drift
from planner.plan.paths import get_path, set_path
from planner.plan.record_builders import revision_fields
from planner.pydantic_internals import field_values, set_field_value
from planner.secrets import secret_digest
from planner.state.document import IntentOp, StateDocument
from planner.state.records import RecordedDeployment, share_given_names

NAME_LOOKUP_LIMIT = 5
PAGES_IN_FLIGHT = 4  # enough to hide the latency of each page behind the parsing of others


@dataclass
class Observed:
    """What the control plane holds for the names a plan is about.

    `by_name`: every recorded name -> its live deployment, None when gone (or being
    deleted). `unmanaged_existing`: address -> the id of the live deployment the state
    does not record that holds its remote name: wanted names not in the state, recorded
    ones gone remotely, and recorded ones the config renames. `pending_found`: names with
    a pending create intent that exist remotely.
    `health`: recorded (and pending-found) names whose latest revision is not the active
    one.
    `unmanaged`: (whole-workspace refresh only) the live deployments of the workspace
    that are neither recorded, nor wanted by name, nor pending, sorted by name.
    """

    by_name: dict[str, Deployment | None] = field(default_factory=dict)
    unmanaged_existing: dict[str, str] = field(default_factory=dict)
    pending_found: dict[str, Deployment] = field(default_factory=dict)
    health: dict[str, RevisionHealth] = field(default_factory=dict)
    unmanaged: list[Deployment] = field(default_factory=list)


async def refresh_observed(
    client: ControlPlaneClient,
    recorded: Mapping[str, RecordedDeployment],
    wanted_names: Iterable[str],
    *,
    pending_creates: Iterable[str] = (),
    remote_names: Mapping[str, str] | None = None,
    whole_workspace: bool = False,
) -> Observed:
    """Read the recorded deployments by id, look up the names to be created, read the
    health of those not converged.

    Names here are addresses (config table keys, state keys); `remote_names` maps those
    whose name in the workspace differs (`name = "..."` in the config)."""
    wanted = set(wanted_names)
    pending = set(pending_creates) - set(recorded)
    names = sorted((wanted | pending) - set(recorded))
    remote = remote_names or {}
    ids = {r.id for r in recorded.values()}
    listing = await list_workspace(client, len(recorded)) if whole_workspace else []
    if whole_workspace:
        managed, found = read_listed(listing, recorded, names, remote)
    else:
        managed, found = await asyncio.gather(
            read_managed(client, recorded), find_names(client, names, remote, ids)
        )
    # A managed deployment gone remotely is planned to be created again, one the config
    # renames would be re-created under its new name by a replace: that name must be free.
    again = recreated_names(managed, wanted, remote)
    if whole_workspace:
        found |= read_listed(listing, recorded, again, remote)[1] if again else {}
    else:
        found |= await find_names(client, again, remote, ids)
    adopted = {name: d for name, d in sorted(found.items()) if name in pending}
    # a create an interrupted apply sent is the planner's like a recorded one: so is the
    # rollout it started (listed by the plan, waited for by the next apply)
    health = await read_health(client, {**managed, **adopted})
    observed = Observed(by_name=managed, pending_found=adopted, health=health)
    for name, deployment in sorted(found.items()):
        if name not in pending:
            observed.unmanaged_existing[name] = deployment.id
    if whole_workspace:
        observed.unmanaged = not_managed(listing, recorded, found)
    return observed


def recreated_names(
    managed: Mapping[str, Deployment | None], wanted: set[str], remote: Mapping[str, str]
) -> list[str]:
    """The recorded addresses a plan may create again under their remote name: those
    gone remotely that are still WANTED, and the live ones whose remote name the config
    (REMOTE: every address the config declares -> its remote name) changes."""
    return sorted(
        name
        for name, live in managed.items()
        if (live is None and name in wanted)
        or (live is not None and name in remote and remote[name] != live.name)
    )


async def list_workspace(client: ControlPlaneClient, expected: int = 0) -> list[Deployment]:
    """Every live (not being deleted) deployment of the workspace, one paged listing of a
    workspace thought to hold EXPECTED deployments (the pages they fill and the short one
    that ends the listing are read concurrently)."""
    pages = await _read_pages(client, expected // PAGE_SIZE)
    seen: dict[str, Deployment] = {}
    for page in pages:
        for deployment in page:
            seen.setdefault(deployment.id, deployment)
    return [d for d in seen.values() if _alive(d) is not None]


async def _read_pages(client: ControlPlaneClient, last: int) -> list[list[Deployment]]:
    """The pages of the listing in order: up to page LAST, `PAGES_IN_FLIGHT` at a time,
    then, while the last one read is full, the next one. A page that is short, or brings
    no deployment not seen before (a server ignoring the offset), ends the listing."""
    pages: dict[int, list[Deployment]] = {}
    ids: set[str] = set()
    claimed, end = 0, None  # pages handed out; the first page found to end the listing
    failed = False  # a page failed: hand out no more (the others are being cancelled)
    specs: dict[tuple[Any, ...], BaseModel] = {}  # alike parts of the listing, by value

    async def worker() -> None:
        nonlocal claimed, last, end, failed
        while not failed and claimed <= last and (end is None or claimed <= end):
            index, claimed = claimed, claimed + 1
            try:
                page = await client.list_deployments(limit=PAGE_SIZE, offset=index * PAGE_SIZE)
            except BaseException:
                failed = True
                raise
            for deployment in page.resources:
                _lighten(deployment, specs)
            fresh = {d.id for d in page.resources} - ids
            ids.update(fresh)
            pages[index] = page.resources
            if len(page.resources) < PAGE_SIZE or not fresh:
                end = index if end is None else min(end, index)
            elif index == last:
                last += 1  # more deployments than expected: read on, one page at a time

    await _all_or_none([worker() for _ in range(PAGES_IN_FLIGHT)])
    assert end is not None  # the workers stop only once a page ended the listing
    return [pages[index] for index in range(end + 1)]


def _lighten(deployment: Deployment, specs: dict[tuple[Any, ...], BaseModel]) -> None:
    """A listed deployment made lighter, nothing of its value changed: its resource spec
    shared with the listed ones equal to it (SPECS: most of a fleet's are alike), then
    its source config likewise when it holds nothing but scalars and its spec (a plan
    compares a shared one with the config once); the sets of given names of it and of
    the parts it keeps shared with the other listed ones' (`share_given_names`).
    22 MiB of a 10,000-deployment listing; nothing changes a listed one."""
    share_given_names(deployment)
    share_given_names(deployment.source_revision_config)
    source_config = deployment.source_config
    spec: BaseModel | None = source_config.resource_spec
    if spec is not None:
        spec = _shared(spec, _value_key(spec), specs)
        set_field_value(source_config, "resource_spec", spec)
    key = _value_key(source_config, spec)
    set_field_value(deployment, "source_config", _shared(source_config, key, specs))


def _shared(
    part: BaseModel, key: tuple[Any, ...] | None, specs: dict[tuple[Any, ...], BaseModel]
) -> BaseModel:
    """The first listed part alike to PART (KEY: its value; None: PART, not shared)."""
    shared = part if key is None else specs.setdefault(key, part)
    if shared is part:
        share_given_names(part)
    return shared


def _value_key(model: BaseModel, spec: BaseModel | None = None) -> tuple[Any, ...] | None:
    """MODEL's class and its given fields with their types and values, the keys it keeps
    that no model knows among them (None: one is not a scalar, nor SPEC, which stands for
    itself: SPECS holds it, so its id stays its)."""
    names = tuple(model.model_fields_set)
    values = tuple(map(field_values(model).__getitem__, names))
    unknown = model.model_extra
    if unknown:  # a PATCH of the spec sends them back: only alike ones are one
        names += tuple(f"?{key}" for key in unknown)
        values += tuple(unknown.values())
    if spec is not None:
        values = tuple([id(v) if v is spec else v for v in values])
    kinds = tuple(map(type, values))
    return (type(model), names, kinds, values) if _SCALARS.issuperset(kinds) else None


_SCALARS = frozenset({str, int, float, bool, type(None)})


async def _all_or_none(calls: list[Coroutine[Any, Any, None]]) -> None:
    """Run CALLS concurrently; when one fails, the others are cancelled (and awaited)
    before its error is raised."""
    tasks = [asyncio.ensure_future(call) for call in calls]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def read_listed(
    listing: list[Deployment],
    recorded: Mapping[str, RecordedDeployment],
    names: list[str],
    remote: Mapping[str, str],
) -> tuple[dict[str, Deployment | None], dict[str, Deployment]]:
    """What `read_managed` and `find_names` answer, from a listing of the workspace
    (NAMES are addresses; REMOTE maps those named otherwise in the workspace)."""
    by_id = {d.id: d for d in listing}
    managed = {name: by_id.get(r.id) for name, r in sorted(recorded.items())}
    if not names:  # a no-change plan: no name to look up in the listing
        return managed, {}
    ids = {r.id for r in recorded.values()}
    by_name: dict[str, Deployment] = {}
    for deployment in listing:
        if deployment.id not in ids:
            by_name.setdefault(deployment.name, deployment)
    wire = {name: remote.get(name, name) for name in names}
    return managed, {name: by_name[wire[name]] for name in names if wire[name] in by_name}


def not_managed(
    listing: list[Deployment],
    recorded: Mapping[str, RecordedDeployment],
    found: Mapping[str, Deployment],
) -> list[Deployment]:
    """The listed deployments the state does not manage and the plan does not already
    speak of (a wanted name is an import error, a pending create is recovered)."""
    skip = {r.id for r in recorded.values()} | {d.id for d in found.values()}
    return sorted((d for d in listing if d.id not in skip), key=lambda d: (d.name, d.id))


async def read_health(
    client: ControlPlaneClient, managed: Mapping[str, Deployment | None]
) -> dict[str, RevisionHealth]:
    """Name -> health of each live deployment whose latest revision is not active: one
    revision read each, concurrently; converged deployments cost no request. A revision
    read as DEPLOYED or SKIPPED succeeded (the listing was read before it became active,
    or it was skipped): converged, nothing to show or submit again."""
    stuck = {n: d for n, d in managed.items() if d is not None and not is_converged(d)}
    revisions = await asyncio.gather(
        *(client.get_revision(d.id, d.latest_revision_id or "") for d in stuck.values())
    )
    return {
        name: RevisionHealth(d.id, revision.id, str(revision.status), d.active_revision_id)
        for (name, d), revision in zip(stuck.items(), revisions, strict=True)
        if revision.status not in SUCCESS_STATUSES
    }


async def read_managed(
    client: ControlPlaneClient, recorded: Mapping[str, RecordedDeployment]
) -> dict[str, Deployment | None]:
    """Every recorded name -> its live deployment (None: gone or being deleted)."""
    by_id = await client.get_deployments_by_ids(r.id for r in recorded.values())
    return {name: _alive(by_id.get(r.id)) for name, r in sorted(recorded.items())}


async def find_names(
    client: ControlPlaneClient,
    names: list[str],
    remote: Mapping[str, str],
    recorded_ids: Collection[str] = (),
) -> dict[str, Deployment]:
    """Address -> the live (not being deleted) deployment with its remote name, for NAMES;
    deployments of RECORDED_IDS do not count (as in `read_listed`)."""
    if not names:
        return {}
    address_of = {remote.get(name, name): name for name in names}
    if len(names) <= NAME_LOOKUP_LIMIT:
        results = await asyncio.gather(
            *(
                client.find_by_name(wire, include_deleting=False, excluding=recorded_ids)
                for wire in address_of
            )
        )
        return {address_of[d.name]: d for d in results if d is not None}
    found: dict[str, Deployment] = {}
    async with aclosing(client.iter_deployments()) as deployments:
        async for deployment in deployments:
            if deployment.id in recorded_ids:
                continue
            if deployment.name in address_of and _alive(deployment) is not None:
                found.setdefault(address_of[deployment.name], deployment)
    return found


def _alive(deployment: Deployment | None) -> Deployment | None:
    if deployment is None or is_being_deleted(deployment.status):
        return None
    return deployment


def pending_create_names(doc: StateDocument) -> list[str]:
    """Names whose create was journalled but never recorded (an apply stopped mid-way)."""
    return sorted({i.name for i in doc.pending if i.op == IntentOp.CREATE} - set(doc.deployments))


def record_drift(
    doc: StateDocument, drift: Iterable[Drift], observed: Observed, key: bytes
) -> list[str]:
    """`--refresh-only`: write the observed values of drifted fields into DOC.

    A deployment deleted outside the planner is forgotten; a drifted field takes its
    observed value (or leaves `managed` when it is gone remotely); a drifted secret takes
    the digest of its observed value. Returns the names whose record changed.
    """
    changed: set[str] = set()
    for item in drift:
        live = observed.by_name.get(item.name)
        if item.name not in doc.deployments:
            continue
        if item.path is None or live is None:
            doc.forget(item.name)
        else:
            doc.record(_refreshed(doc.deployments[item.name], item.path, live, key))
        changed.add(item.name)
    return sorted(changed)


def _refreshed(
    recorded: RecordedDeployment, path: str, live: Deployment, key: bytes
) -> RecordedDeployment:
    managed = copy.deepcopy(recorded.managed)
    digests = dict(recorded.secret_digests)
    if path.startswith("secrets."):
        name = path.removeprefix("secrets.")
        value = observed_secrets(live).get(name)
        if value is None:
            digests.pop(name, None)
        else:
            digests[name] = secret_digest(key, name, value)
    else:
        value = get_path(observed_doc(live), path)
        if value is None:
            _unset_path(managed, path)
        else:
            set_path(managed, path, value)
    update = {"managed": managed, "secret_digests": digests, **revision_fields(live)}
    return recorded.model_copy(update=update)


def _unset_path(doc: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    node: Any = doc
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)
