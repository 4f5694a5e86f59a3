"""The client against the real local control plane, in-process (ASGI): every endpoint."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path

import httpx2
import pytest
from fastapi import FastAPI

from planner.api.client import ControlPlaneClient
from planner.api.errors import (
    AuthError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    ValidationFailedError,
)
from planner.api.models import (
    DeploymentCreate,
    DeploymentPatch,
    ResourceSpec,
    SourceConfig,
    SourceRevisionConfig,
    is_being_deleted,
)
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings

pytestmark = pytest.mark.anyio


async def git_host_create(client: ControlPlaneClient, name: str) -> DeploymentCreate:
    integration = (await client.list_integrations())[0]
    repository = (await client.list_repositories(integration.id))[0]
    return DeploymentCreate(
        name=name,
        source="git_host",
        source_config=SourceConfig(integration_id=integration.id, repo_url=repository.url),
        source_revision_config=SourceRevisionConfig(
            repo_ref=repository.default_branch, agent_config_path="agent.json"
        ),
    )


async def test_create_get_patch_and_revisions(local_client: ControlPlaneClient):
    """A deployment is created, read, patched into a new revision, and its revisions listed."""
    created = await local_client.create_deployment(await git_host_create(local_client, "api"))
    assert created.name == "api" and created.latest_revision_id

    fetched = await local_client.get_deployment(created.id)
    assert fetched.id == created.id
    first = await local_client.get_revision(created.id, created.latest_revision_id)
    assert first.id == created.latest_revision_id

    patch = DeploymentPatch(
        source_config=SourceConfig(resource_spec=ResourceSpec(min_scale=1, max_scale=2)),
        source_revision_config=SourceRevisionConfig(repo_ref="release"),
    )
    patched = await local_client.patch_deployment(created.id, patch)
    assert patched.latest_revision_id != created.latest_revision_id
    assert patched.source_config.resource_spec == ResourceSpec(min_scale=1, max_scale=2)

    revisions = await local_client.list_revisions(created.id)
    assert [r.id for r in revisions] == [patched.latest_revision_id, first.id]


async def test_list_filters_paging_and_ids(local_client: ControlPlaneClient):
    """Name filter, paging over every page and the id lookup agree with what was created."""
    template = await git_host_create(local_client, "x")
    names = [f"svc-{i:03d}" for i in range(7)] + ["other"]
    created = await asyncio.gather(
        *(local_client.create_deployment(template.model_copy(update={"name": n})) for n in names)
    )
    by_name = {d.name: d.id for d in created}

    matching = [
        d.name async for d in local_client.iter_deployments(page_size=3, name_contains="svc-")
    ]
    assert sorted(matching) == names[:7]
    page = await local_client.list_deployments(limit=2, offset=0)
    assert len(page.resources) == 2 and page.offset == 2

    wanted = [by_name["svc-001"], by_name["other"], str(uuid.uuid4())]
    found = await local_client.get_deployments_by_ids(wanted)
    assert set(found) == {by_name["svc-001"], by_name["other"]}

    found_by_name = await local_client.find_by_name("svc-00")
    assert found_by_name is None
    exact = await local_client.find_by_name("svc-004")
    assert exact is not None and exact.id == by_name["svc-004"]


async def test_bulk_delete_with_unknown_id(local_client: ControlPlaneClient):
    """A bulk delete naming an unknown id still deletes the others and reports all as gone."""
    template = await git_host_create(local_client, "x")
    a = await local_client.create_deployment(template.model_copy(update={"name": "del-a"}))
    b = await local_client.create_deployment(template.model_copy(update={"name": "del-b"}))
    ghost = str(uuid.uuid4())

    outcome = await local_client.delete_deployments([a.id, ghost, b.id])
    assert outcome.deleted == {a.id, b.id, ghost}
    assert outcome.ok

    again = await local_client.delete_deployments([a.id])  # already being deleted: 207
    assert again.deleted == {a.id}
    remaining = await local_client.get_deployments_by_ids([a.id, b.id])
    assert all(is_being_deleted(d.status) for d in remaining.values())


async def test_error_classes_from_the_real_server(local_client: ControlPlaneClient):
    """409 (a create, or a PATCH conflicting with the deployment), 400 (an unmodifiable
    field), 404 and 422 come back as their error classes with readable messages."""
    body = await git_host_create(local_client, "dup")
    created = await local_client.create_deployment(body)
    with pytest.raises(ConflictError):
        await local_client.create_deployment(body)

    bad_patch = DeploymentPatch(source_config=SourceConfig(repo_url="https://elsewhere"))
    with pytest.raises(BadRequestError, match=rf"PATCH /v2/deployments/{created.id} failed: 400"):
        await local_client.patch_deployment(created.id, bad_patch)
    foreign = DeploymentPatch(source_revision_config=SourceRevisionConfig(image_uri="img:1"))
    with pytest.raises(ConflictError, match=rf"PATCH /v2/deployments/{created.id} failed: 409"):
        await local_client.patch_deployment(created.id, foreign)

    missing = str(uuid.uuid4())
    with pytest.raises(NotFoundError, match=missing):
        await local_client.get_deployment(missing)

    incomplete = DeploymentCreate(name="incomplete", source="git_host")
    with pytest.raises(ValidationFailedError) as caught:
        await local_client.create_deployment(incomplete)
    assert any(loc.startswith("source_config") for loc, _ in caught.value.problems)
    assert all(not line.startswith("body.") for line in caught.value.details)


async def test_catalog_endpoints(local_client: ControlPlaneClient):
    """Providers, integrations and repositories come from the seeded catalog."""
    providers = await local_client.list_providers()
    integrations = await local_client.list_integrations()
    repositories = await local_client.list_repositories(integrations[0].id)
    assert len(providers) >= 1
    assert repositories and all(r.host_integration_id == integrations[0].id for r in repositories)


async def test_wrong_key_is_an_auth_error_without_the_key(local_settings: ServerSettings):
    """A key the server does not know gets AuthError, and the message does not echo it."""
    app = create_app(local_settings)
    key = "wrong-key-3b1f"
    transport = httpx2.ASGITransport(app=app)
    async with ControlPlaneClient("http://t", key, None, transport=transport) as client:
        with pytest.raises(AuthError) as caught:
            await client.list_providers()
    assert caught.value.status in (401, 403)
    assert key not in str(caught.value) and key not in " ".join(caught.value.details)
    assert caught.value.hint is not None and "PLANNER_API_KEY" in caught.value.hint
    assert "PLANNER_TENANT_ID" not in caught.value.hint
    app.state.store.close()


A_TENANT, B_TENANT = str(uuid.UUID(int=0xA)), str(uuid.UUID(int=0xB))


@pytest.mark.parametrize(
    ("key", "tenant", "hint_names", "hint_omits"),
    [
        ("multi-key-7c2e", None, "PLANNER_TENANT_ID", "PLANNER_API_KEY"),
        ("solo-key-91d0", "not-a-uuid", "PLANNER_TENANT_ID", "PLANNER_API_KEY"),
        ("solo-key-91d0", B_TENANT, "PLANNER_API_KEY", "set PLANNER_TENANT_ID"),
    ],
    ids=["requires-workspace-specification", "malformed-tenant", "no-access"],
)
async def test_403_hint_fits_its_detail(
    local_settings: ServerSettings, key: str, tenant: str | None, hint_names: str, hint_omits: str
):
    """A 403 about choosing a workspace hints at the tenant; one refusing the key hints at
    the key; neither prints the key."""
    local_settings.api_keys = {"multi-key-7c2e": [A_TENANT, B_TENANT], "solo-key-91d0": [A_TENANT]}
    app = create_app(local_settings)
    transport = httpx2.ASGITransport(app=app)
    async with ControlPlaneClient("http://t", key, tenant, transport=transport) as client:
        with pytest.raises(AuthError) as caught:
            await client.list_providers()
    assert caught.value.status == 403
    hint = caught.value.hint or ""
    assert hint_names in hint and hint_omits not in hint
    assert key not in f"{caught.value} {caught.value.details} {hint}"
    app.state.store.close()


async def test_base_url_path_prefix_with_mounted_app(tmp_path: Path):
    """A plane served under `/api-host` is reached through a base URL with that prefix."""
    inner = create_app(ServerSettings(db_path=tmp_path / "prefixed.db"))
    outer = FastAPI()
    outer.mount("/api-host", inner)
    transport = httpx2.ASGITransport(app=outer)
    base = "http://selfhosted.test/api-host"
    async with ControlPlaneClient(
        base, EMBEDDED_API_KEY, DEFAULT_TENANT_ID, transport=transport
    ) as client:
        providers = await client.list_providers()
        page = await client.list_deployments()
    assert providers and page.resources == []
    inner.state.store.close()


async def test_loopback_http_logs_never_show_the_key(loopback_url: str, caplog):
    """Over real HTTP with every logger at DEBUG (httpx2, httpcore2), the key is not logged."""
    caplog.set_level(logging.DEBUG)
    async with ControlPlaneClient(loopback_url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID) as client:
        providers = await client.list_providers()
        with pytest.raises(NotFoundError):
            await client.get_deployment(str(uuid.uuid4()))
    assert providers
    assert "httpcore" in caplog.text  # the transport's own debug lines were captured
    assert EMBEDDED_API_KEY not in caplog.text
