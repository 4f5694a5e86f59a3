"""The client's revision calls (`planner.api.revisions`): the redeploy request's shape and
its never-twice retry (MockTransport), and redeploy against the local control plane in
both dialects (ASGI)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.errors import BadRequestError, ServerError
from planner.api.models import DeploymentCreate, DeploymentPatch, SourceRevisionConfig
from planner.api.vocabulary import Dialect
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.api.api_fakes import Scripted, deployment_json

pytestmark = pytest.mark.anyio
PATH = "/v2/deployments/d1/revisions/r1/redeploy"


def redeployed(latest: str) -> httpx2.Response:
    return httpx2.Response(200, json={**deployment_json("d1"), "latest_revision_id": latest})


async def test_redeploy_posts_to_the_revision_and_reads_the_deployment(make_client):
    """`redeploy` sends one bodiless POST to the revision's redeploy path and returns the
    deployment the server answered with."""
    scripted = Scripted(lambda request: redeployed("r9"))
    async with make_client(scripted) as client:
        deployment = await client.redeploy("d1", "r1", latest="r8")
    [request] = scripted.requests
    assert (request.method, request.url.path, request.content) == ("POST", PATH, b"")
    assert deployment.latest_revision_id == "r9"


async def test_a_failed_redeploy_made_anyway_is_adopted_not_sent_again(make_client):
    """After a 503, a deployment whose latest revision moved is what that attempt made:
    it is returned, and the POST is not sent a second time."""
    answers = iter([httpx2.Response(503, json={"detail": "busy"}), redeployed("r9")])
    scripted = Scripted(lambda request: next(answers))
    async with make_client(scripted) as client:
        deployment = await client.redeploy("d1", "r1", latest="r8")
    assert [(r.method, r.url.path) for r in scripted.requests] == [
        ("POST", PATH),
        ("GET", "/v2/deployments/d1"),
    ]
    assert deployment.latest_revision_id == "r9"


async def test_a_failed_redeploy_not_made_is_sent_again(make_client):
    """After a 503, a deployment whose latest revision is still the one before is
    redeployed again (the first attempt made nothing)."""
    posts: list[int] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return redeployed("r8")
        posts.append(1)
        return (
            httpx2.Response(503, json={"detail": "busy"}) if len(posts) == 1 else redeployed("r9")
        )

    scripted = Scripted(answer)
    async with make_client(scripted) as client:
        deployment = await client.redeploy("d1", "r1", latest="r8")
    assert [r.method for r in scripted.requests] == ["POST", "GET", "POST"]
    assert deployment.latest_revision_id == "r9"


async def test_a_redeploy_without_the_latest_revision_is_never_retried(make_client):
    """Without the latest revision to compare with, a failed POST is not sent again."""
    scripted = Scripted(lambda request: httpx2.Response(503, json={"detail": "busy"}))
    async with make_client(scripted) as client:
        with pytest.raises(ServerError):
            await client.redeploy("d1", "r1")
    assert len(scripted.requests) == 1


@pytest.mark.parametrize("dialect", [Dialect.SEED, Dialect.SERVICE])
async def test_redeploy_against_the_local_control_plane(tmp_path: Path, dialect: Dialect):
    """On the local control plane, in either dialect, a redeploy of a DEPLOYED revision
    makes a new latest revision carrying that revision's config, which becomes active;
    a revision that never reached DEPLOYED is refused with a 400 naming it."""
    settings = ServerSettings(
        db_path=tmp_path / "cp.db", build_seconds=0.05, deploy_seconds=0.05, dialect=dialect
    )
    app = create_app(settings)
    transport = httpx2.ASGITransport(app=app)
    async with ControlPlaneClient(
        "http://local.test",
        EMBEDDED_API_KEY,
        DEFAULT_TENANT_ID,
        transport=transport,
        on_close=app.state.store.close,
        dialect=None,
    ) as client:
        first = await settled(client, (await docker_deployment(client)).id)
        second = await client.patch_deployment(first.id, image_patch("worker:2"))
        assert second.latest_revision_id is not None and first.latest_revision_id is not None
        await settled(client, first.id)
        back = await client.redeploy(
            first.id, first.latest_revision_id, latest=second.latest_revision_id
        )
        assert back.latest_revision_id not in (first.latest_revision_id, second.latest_revision_id)
        assert back.source_revision_config.image_uri == "registry.example.com/worker:1"
        live = await settled(client, first.id)
        assert live.active_revision_id == back.latest_revision_id
        failing = await client.patch_deployment(first.id, image_patch("worker:fail-deploy"))
        assert failing.latest_revision_id is not None
        await settled(client, first.id, failing.latest_revision_id)
        with pytest.raises(BadRequestError, match=failing.latest_revision_id):
            await client.redeploy(first.id, failing.latest_revision_id)


async def docker_deployment(client: ControlPlaneClient):
    create = DeploymentCreate(
        name="worker",
        source="internal_docker",
        source_revision_config=SourceRevisionConfig(image_uri="registry.example.com/worker:1"),
    )
    return await client.create_deployment(create)


def image_patch(tag: str) -> DeploymentPatch:
    config = SourceRevisionConfig(image_uri=f"registry.example.com/{tag}")
    return DeploymentPatch(source_revision_config=config)


async def settled(client: ControlPlaneClient, deployment_id: str, revision_id: str | None = None):
    """The deployment once its latest revision (or REVISION_ID) reached a final status."""
    for _ in range(200):
        live = await client.get_deployment(deployment_id)
        wanted = revision_id or live.latest_revision_id
        assert wanted is not None
        revision = await client.get_revision(deployment_id, wanted)
        if str(revision.status) in ("DEPLOYED", "DEPLOY_FAILED", "BUILD_FAILED", "SKIPPED"):
            return live if revision_id else await client.get_deployment(deployment_id)
        await asyncio.sleep(0.02)
    raise AssertionError(f"{deployment_id} still rolling out")
