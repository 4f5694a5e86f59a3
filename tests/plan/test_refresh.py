"""Refresh against the real local control plane: request counts, gone, unmanaged, pending."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.client import PAGE_SIZE, ControlPlaneClient
from planner.api.errors import BadRequestError
from planner.api.models import Deployment, DeploymentCreate, ResourceSpec, SourceConfig
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from planner.plan.model import Drift
from planner.plan.record_builders import observed_record
from planner.plan.refresh import (
    NAME_LOOKUP_LIMIT,
    PAGES_IN_FLIGHT,
    Observed,
    list_workspace,
    pending_create_names,
    read_health,
    record_drift,
    refresh_observed,
)
from planner.secrets import secret_digest
from planner.state import RecordedDeployment, StateDocument
from tests.api.api_fakes import Scripted, deployment_json, page
from tests.plan.builders import KEY, git_desired


class RequestLog:
    """Every request the client sends, as `METHOD path`."""

    def __init__(self) -> None:
        self.requests: list[httpx2.Request] = []

    async def hook(self, request: httpx2.Request) -> None:
        self.requests.append(request)

    def clear(self) -> None:
        self.requests.clear()

    def count(self, method: str, path: str) -> int:
        return sum(1 for r in self.requests if (r.method, r.url.path) == (method, path))

    @property
    def single_gets(self) -> int:
        return sum(1 for r in self.requests if r.url.path.startswith("/v2/deployments/"))


@pytest.fixture
def log() -> RequestLog:
    return RequestLog()


@pytest.fixture
async def client(tmp_path: Path, log: RequestLog) -> AsyncIterator[ControlPlaneClient]:
    """A client on the local control plane in-process, logging its requests."""
    settings = ServerSettings(
        db_path=tmp_path / "cp.db", build_seconds=0.05, deploy_seconds=0.05, delete_seconds=30
    )
    app = create_app(settings)
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), event_hooks={"request": [log.hook]}
    )
    async with (
        http,
        ControlPlaneClient(
            "http://local.test",
            EMBEDDED_API_KEY,
            DEFAULT_TENANT_ID,
            http_client=http,
            on_close=app.state.store.close,
        ) as cp,
    ):
        yield cp


async def create(client: ControlPlaneClient, name: str, **body: object) -> Deployment:
    data = {
        "name": name,
        "source": "internal_docker",
        "source_revision_config": {"image_uri": f"registry.example.com/{name}:1"},
        **body,
    }
    return await client.create_deployment(DeploymentCreate.model_validate(data))


def recorded_of(deployments: list[Deployment]) -> dict[str, RecordedDeployment]:
    return {d.name: RecordedDeployment(name=d.name, id=d.id) for d in deployments}


@pytest.mark.anyio
async def test_managed_deployments_are_read_in_ceil_n_over_100_list_requests(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """150 converged deployments are read in 2 list requests, never one GET each."""
    deployments = [await create(client, f"svc-{i:03d}") for i in range(150)]
    await asyncio.sleep(0.3)  # every first revision DEPLOYED: latest == active
    log.clear()
    observed = await refresh_observed(client, recorded_of(deployments), [])
    assert log.count("GET", "/v2/deployments") == math.ceil(150 / 100)
    assert log.single_gets == 0
    assert len(log.requests) == 2
    assert {name: d.id for name, d in observed.by_name.items() if d} == {
        d.name: d.id for d in deployments
    }


@pytest.mark.anyio
async def test_deleted_and_deleting_deployments_count_as_gone(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """A recorded id that is gone or AWAITING_DELETE observes as None, still in one request."""
    kept, deleting = await create(client, "kept"), await create(client, "deleting")
    await client.delete_deployments([deleting.id])
    recorded = recorded_of([kept, deleting])
    recorded["lost"] = RecordedDeployment(name="lost", id="00000000-0000-4000-8000-0000000000ff")
    await asyncio.sleep(0.3)  # kept's first revision DEPLOYED: no revision read
    log.clear()
    observed = await refresh_observed(client, recorded, [])
    assert observed.by_name["kept"] is not None
    assert observed.by_name["deleting"] is None
    assert observed.by_name["lost"] is None
    assert len(log.requests) == 1


@pytest.mark.anyio
async def test_few_names_are_looked_up_one_request_each(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """Up to NAME_LOOKUP_LIMIT names: one name_contains lookup per name; exact names only."""
    existing = await create(client, "api")
    await create(client, "api-v2")  # name_contains "api" finds it too: not a match
    names = ["api", "new-a", "new-b"]
    assert len(names) <= NAME_LOOKUP_LIMIT
    log.clear()
    observed = await refresh_observed(client, {}, names)
    assert observed.unmanaged_existing == {"api": existing.id}
    assert log.count("GET", "/v2/deployments") == len(names)
    assert all("name_contains" in str(r.url) for r in log.requests)


@pytest.mark.anyio
async def test_many_names_are_answered_by_one_paged_listing(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """More names than the limit: one listing of every deployment answers them all."""
    existing = [await create(client, f"svc-{i}") for i in range(3)]
    names = [f"svc-{i}" for i in range(NAME_LOOKUP_LIMIT + 5)]
    log.clear()
    observed = await refresh_observed(client, {}, names)
    assert observed.unmanaged_existing == {d.name: d.id for d in existing}
    assert len(log.requests) == 1


@pytest.mark.anyio
async def test_recorded_names_are_not_looked_up(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """A wanted name already in the state is read by id, not reported as unmanaged."""
    api = await create(client, "api")
    await asyncio.sleep(0.3)  # converged: no revision read
    log.clear()
    observed = await refresh_observed(client, recorded_of([api]), ["api"])
    assert observed.unmanaged_existing == {}
    assert observed.by_name["api"] is not None
    assert len(log.requests) == 1


@pytest.mark.anyio
async def test_a_deleting_namesake_is_not_unmanaged(client: ControlPlaneClient) -> None:
    """A same-name deployment being deleted does not block creating the name."""
    doomed = await create(client, "api")
    await client.delete_deployments([doomed.id])
    observed = await refresh_observed(client, {}, ["api"])
    assert observed.unmanaged_existing == {}


@pytest.mark.anyio
async def test_pending_create_that_exists_is_pending_found(client: ControlPlaneClient) -> None:
    """A name with a pending create intent found remotely is `pending_found`, not an error."""
    made = await create(client, "api")
    doc = StateDocument.new("embedded:x", DEFAULT_TENANT_ID)
    doc.add_intent("create", "api")
    doc.add_intent("update", "other")
    assert pending_create_names(doc) == ["api"]
    observed = await refresh_observed(client, {}, ["api"], pending_creates=["api"])
    assert observed.unmanaged_existing == {}
    assert observed.pending_found["api"].id == made.id


@pytest.mark.anyio
async def test_observed_record_holds_observed_values_of_managed_fields(
    client: ControlPlaneClient,
) -> None:
    """The adopted record keeps the live values of the fields the config sets, plus ids
    and the digests of every live secret when the config manages secrets."""
    desired = git_desired("api", secrets={"TOKEN": "new"})
    body = {**desired.managed(), "name": "api"}
    body["source_config"] = {**body["source_config"], "build_on_push": True}
    body["secrets"] = [{"name": "TOKEN", "value": "old"}, {"name": "EXTRA", "value": "x"}]
    live = await client.create_deployment(DeploymentCreate.model_validate(body))
    recorded = observed_record(desired, live, KEY)
    assert recorded.managed["source_config"]["build_on_push"] is True
    assert "deployment_type" not in recorded.managed["source_config"]  # not set by the config
    assert recorded.secret_digests == {
        "TOKEN": secret_digest(KEY, "TOKEN", "old"),
        "EXTRA": secret_digest(KEY, "EXTRA", "x"),
    }
    assert (recorded.id, recorded.latest_revision_id) == (live.id, live.latest_revision_id)
    assert recorded.updated_at is not None and recorded.updated_at.endswith("Z")


@pytest.mark.anyio
async def test_record_drift_takes_observed_values(client: ControlPlaneClient) -> None:
    """record_drift writes observed values, drops fields gone remotely, forgets the dead."""
    desired = git_desired("api")
    live = await client.create_deployment(
        DeploymentCreate.model_validate({**desired.managed(), "name": "api"})
    )
    doc = StateDocument.new("embedded:x", DEFAULT_TENANT_ID)
    stale = observed_record(desired, live, KEY)
    managed = {**stale.managed, "source_config": {**stale.managed["source_config"]}}
    managed["source_config"]["build_on_push"] = True
    managed["source_config"]["custom_url"] = "https://gone.example.com"
    doc.record(stale.model_copy(update={"managed": managed}))
    doc.record(RecordedDeployment(name="dead", id="00000000-0000-4000-8000-0000000000ff"))
    drift = [
        Drift(name="api", path="source_config.build_on_push", recorded=True, observed=False),
        Drift(name="api", path="source_config.custom_url", recorded="x", observed=None),
        Drift(name="dead", path=None, recorded="id", observed=None),
    ]
    observed = Observed(by_name={"api": live, "dead": None})
    assert record_drift(doc, drift, observed, KEY) == ["api", "dead"]
    source_config = doc.deployments["api"].managed["source_config"]
    assert source_config["build_on_push"] is False
    assert "custom_url" not in source_config
    assert "dead" not in doc.deployments


@pytest.mark.anyio
async def test_health_reads_only_the_deployments_whose_revisions_differ(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """One revision read per deployment whose latest is not active: failed, in progress."""
    fine = await create(client, "fine")
    failed = await create(
        client, "failed", source_revision_config={"image_uri": "registry.example.com/fail-deploy"}
    )
    await asyncio.sleep(0.3)
    # No image yet: its first revision waits in QUEUED, however slow the machine is.
    rolling = await create(client, "rolling", source_revision_config={})
    log.clear()
    observed = await refresh_observed(client, recorded_of([fine, failed, rolling]), [])
    assert set(observed.health) == {"failed", "rolling"}
    assert observed.health["failed"].status == "DEPLOY_FAILED"
    assert not observed.health["failed"].is_in_progress
    assert observed.health["rolling"].is_in_progress
    assert log.count("GET", "/v2/deployments") == 1
    assert log.single_gets == 2


@pytest.mark.anyio
async def test_whole_workspace_refresh_lists_the_unmanaged_in_one_listing(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """One paged listing answers managed ids, wanted names and the unmanaged ones."""
    managed = await create(client, "managed")
    wanted = await create(client, "wanted")
    other = await create(client, "by-hand")
    doomed = await create(client, "doomed")
    await client.delete_deployments([doomed.id])
    await asyncio.sleep(0.3)
    log.clear()
    observed = await refresh_observed(
        client, recorded_of([managed]), ["managed", "wanted", "new"], whole_workspace=True
    )
    assert observed.by_name["managed"] is not None
    assert observed.unmanaged_existing == {"wanted": wanted.id}
    assert [d.id for d in observed.unmanaged] == [other.id]
    assert len(log.requests) == 1


@pytest.mark.anyio
async def test_a_revision_that_succeeded_after_the_listing_is_converged(
    client: ControlPlaneClient,
) -> None:
    """A listing read just before the latest revision became active (active: none) and a
    revision read saying DEPLOYED: converged, no health entry (never re-submitted)."""
    made = await create(client, "racer")
    for _ in range(100):
        await asyncio.sleep(0.05)
        live = await client.get_deployment(made.id)
        if live.active_revision_id == live.latest_revision_id:
            break
    assert live.latest_revision_id is not None
    listed_before = live.model_copy(update={"active_revision_id": None})
    assert await read_health(client, {"racer": listed_before}) == {}


@pytest.mark.anyio
async def test_a_workspace_listing_reads_the_pages_the_state_expects(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """250 recorded deployments are listed in ceil((250 + 1)/100) = 3 pages, in the order
    of the sequential listing (the paged `iter_deployments`)."""
    deployments = await asyncio.gather(*(create(client, f"svc-{i:03d}") for i in range(250)))
    await asyncio.sleep(0.3)
    sequential = [d async for d in client.iter_deployments()]
    log.clear()
    listed = await list_workspace(client, len(deployments))
    assert listed == sequential and len(listed) == 250
    assert log.count("GET", "/v2/deployments") == 3
    # every listed deployment (and each of its parts) shares one set of given names
    first, last = listed[0], listed[-1]
    assert first.model_fields_set is last.model_fields_set
    assert first.source_config.model_fields_set is last.source_config.model_fields_set


@pytest.mark.anyio
async def test_the_expected_pages_are_read_several_at_a_time() -> None:
    """A server slow to answer each page: up to PAGES_IN_FLIGHT pages are in flight at
    once, never more, and the listing comes back in page order."""
    in_flight, most = 0, 0

    async def answer(request: httpx2.Request) -> httpx2.Response:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        offset = int(request.url.params["offset"])
        ids = range(offset, min(offset + PAGE_SIZE, 950))
        return page([deployment_json(f"00000000-0000-4000-8000-{i:012d}") for i in ids], 0)

    transport = httpx2.MockTransport(answer)
    async with ControlPlaneClient("http://cp.test", "key", transport=transport) as client:
        listed = await list_workspace(client, 950)
    assert [d.id for d in listed] == [f"00000000-0000-4000-8000-{i:012d}" for i in range(950)]
    assert most == PAGES_IN_FLIGHT


@pytest.mark.anyio
async def test_a_workspace_larger_than_the_state_knows_is_read_to_its_end(
    client: ControlPlaneClient, log: RequestLog
) -> None:
    """With 100 recorded of 230 deployments, the pages past the expected ones are read one
    after another until the short one: ceil((230 + 1)/100) requests, every deployment
    once, the unrecorded ones unmanaged."""
    made = [await create(client, f"svc-{i:03d}") for i in range(230)]
    await asyncio.sleep(0.3)
    log.clear()
    observed = await refresh_observed(client, recorded_of(made[:100]), [], whole_workspace=True)
    assert log.count("GET", "/v2/deployments") == 3
    assert sorted(d.id for d in observed.unmanaged) == sorted(d.id for d in made[100:])
    assert all(observed.by_name[d.name] is not None for d in made[:100])


@pytest.mark.anyio
async def test_a_listing_ends_when_a_page_brings_nothing_new() -> None:
    """A server that ignores the offset (every page the same full page) cannot make the
    concurrent listing loop: each deployment is listed once."""
    full = [deployment_json(f"00000000-0000-4000-8000-{i:012d}") for i in range(PAGE_SIZE)]
    scripted = Scripted(lambda request: page(full, PAGE_SIZE))
    transport = httpx2.MockTransport(scripted)
    async with ControlPlaneClient("http://cp.test", "key", transport=transport) as client:
        listed = await list_workspace(client, 1000)
    assert [d.id for d in listed] == [d["id"] for d in full]
    assert len(scripted.requests) <= 1 + PAGES_IN_FLIGHT


@pytest.mark.anyio
async def test_a_failing_page_fails_the_listing_and_stops_the_others() -> None:
    """A page answered with an error fails the listing with that error; the pages still
    in flight are cancelled, none is left running."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        offset = int(request.url.params["offset"])
        if offset == 2 * PAGE_SIZE:
            return httpx2.Response(400, json={"detail": "bad page"})
        ids = range(offset, offset + PAGE_SIZE)
        return page([deployment_json(f"00000000-0000-4000-8000-{i:012d}") for i in ids], 0)

    transport = httpx2.MockTransport(answer)
    async with ControlPlaneClient("http://cp.test", "key", transport=transport) as client:
        with pytest.raises(BadRequestError):
            await list_workspace(client, 1000)
    workers = [t for t in asyncio.all_tasks() if "_read_pages" in repr(t.get_coro())]
    assert workers == []


@pytest.mark.anyio
async def test_listed_deployments_alike_share_their_resource_spec() -> None:
    """Listed deployments whose resource specs are alike (same fields, values and types)
    share one; any other stays its own, and every one keeps its value."""
    specs: list[dict[str, Any]] = [
        {"cpu": 0.5, "memory_mb": 512},
        {"memory_mb": 512, "cpu": 0.5},
        {"cpu": 1, "memory_mb": 512},
        {"cpu": 0.5, "memory_mb": 512, "labels": {"team": "a"}},
        {"cpu": 0.5, "memory_mb": 512, "labels": {"team": "a"}},
        {"cpu": 0.5, "memory_mb": 512, "min_scale": None},
    ]
    resources = []
    for i, spec in enumerate(specs):
        resource = deployment_json(f"00000000-0000-4000-8000-{i:012d}")
        resource["source_config"] = {"resource_spec": spec}
        resources.append(resource)
    transport = httpx2.MockTransport(lambda request: page(resources, 0))
    async with ControlPlaneClient("http://cp.test", "key", transport=transport) as client:
        listed = await list_workspace(client, len(specs))
    got = [d.source_config.resource_spec for d in listed]
    assert [s.model_dump(exclude_unset=True) if s else None for s in got] == [
        ResourceSpec.model_validate(spec).model_dump(exclude_unset=True) for spec in specs
    ]
    assert got[0] is got[1] and got[2] is not got[0] and got[5] is not got[0]
    assert got[3] is not got[4] and got[3] == got[4]


@pytest.mark.anyio
async def test_listed_deployments_alike_share_their_source_config() -> None:
    """Listed source configs alike (the same scalars and a shared resource spec) are one
    model; one with another spec, another scalar or a part that is no scalar stays its
    own; every one keeps its value."""
    configs: list[dict[str, Any]] = [
        {"resource_spec": {"cpu": 0.5}, "deployment_type": "prod"},
        {"deployment_type": "prod", "resource_spec": {"cpu": 0.5}},
        {"resource_spec": {"cpu": 1}, "deployment_type": "prod"},
        {"resource_spec": {"cpu": 0.5}, "deployment_type": "dev"},
        {"resource_spec": {"cpu": 0.5, "labels": {"a": "b"}}, "deployment_type": "prod"},
        {"resource_spec": {"cpu": 0.5, "labels": {"a": "b"}}, "deployment_type": "prod"},
        {"listener_config": {"k8s_namespace": "x"}},
        {"listener_config": {"k8s_namespace": "x"}},
        {"deployment_type": "prod"},
        {"deployment_type": "prod"},
    ]
    resources = []
    for i, source_config in enumerate(configs):
        resource = deployment_json(f"00000000-0000-4000-8000-{i:012d}")
        resource["source_config"] = source_config
        resources.append(resource)
    transport = httpx2.MockTransport(lambda request: page(resources, 0))
    async with ControlPlaneClient("http://cp.test", "key", transport=transport) as client:
        listed = await list_workspace(client, len(configs))
    got = [d.source_config for d in listed]
    assert [c.model_dump(exclude_unset=True) for c in got] == [
        SourceConfig.model_validate(c).model_dump(exclude_unset=True) for c in configs
    ]
    assert got[0] is got[1] and got[8] is got[9]
    assert len({id(c) for c in got[1:5]}) == 4 and got[4] is not got[5] and got[6] is not got[7]


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["by name", "listing of names", "whole workspace"])
async def test_a_recorded_deployment_never_holds_a_name_to_create(
    client: ControlPlaneClient, how: str
) -> None:
    """`worker` recorded as `runner` (`state mv`), the config wanting `worker`: the name
    lookups, the listing they fall back to and the whole-workspace listing all leave the
    recorded deployment to the plan (a move), so plan and apply see the same."""
    worker = await create(client, "worker")
    recorded = {"runner": RecordedDeployment(name="runner", id=worker.id)}
    wanted = ["worker"]
    if how == "listing of names":
        wanted += [f"new-{i}" for i in range(NAME_LOOKUP_LIMIT)]
    observed = await refresh_observed(
        client, recorded, wanted, whole_workspace=how == "whole workspace"
    )
    assert observed.unmanaged_existing == {}
    assert observed.pending_found == {}
    by_name = observed.by_name["runner"]
    assert by_name is not None and by_name.name == "worker"


@pytest.mark.anyio
@pytest.mark.parametrize("whole_workspace", [False, True])
async def test_the_new_remote_name_of_a_renamed_deployment_is_looked_up(
    client: ControlPlaneClient, whole_workspace: bool
) -> None:
    """`worker` (live as `worker-dev`) renamed `worker-prod` by the config, which another
    deployment holds: found as holding the name a replace would create."""
    dev = await create(client, "worker-dev")
    prod = await create(client, "worker-prod")
    recorded = {"worker": RecordedDeployment(name="worker", id=dev.id)}
    observed = await refresh_observed(
        client,
        recorded,
        [],
        remote_names={"worker": "worker-prod"},
        whole_workspace=whole_workspace,
    )
    assert observed.unmanaged_existing == {"worker": prod.id}
    kept = await refresh_observed(client, recorded, [], remote_names={"worker": "worker-dev"})
    assert kept.unmanaged_existing == {}
