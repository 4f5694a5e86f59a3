"""Revision endpoints, and the lifecycle as clients see it through them."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from planner.api.models import Revision, RevisionList
from planner.api.rules import Mode
from tests.controlplane.core_fixtures import control_plane, external_docker_body, git_host_body

pytestmark = pytest.mark.anyio


async def test_revision_has_the_documented_fields(tmp_path: Path) -> None:
    """A revision carries id, deployment_id, timestamps, status, source and its config."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        response = await cp.client.get(
            f"/v2/deployments/{created['id']}/revisions/{created['latest_revision_id']}"
        )
        assert response.status_code == 200
        revision = Revision.model_validate(response.json())
        assert set(response.json()) == {
            "id",
            "deployment_id",
            "created_at",
            "updated_at",
            "status",
            "source",
            "source_revision_config",
        }
        assert revision.deployment_id == created["id"] and revision.status == "QUEUED"
        assert revision.source_revision_config.repo_ref == "main"
        assert revision.source_revision_config.repo_commit_sha


async def test_revision_list_is_newest_first_and_paged(tmp_path: Path) -> None:
    """Revisions list newest first in `{resources, offset}` pages."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        for ref in ("r1", "r2", "r3"):
            await cp.patch(created["id"], {"source_revision_config": {"repo_ref": ref}})
        url = f"/v2/deployments/{created['id']}/revisions"
        first = RevisionList.model_validate((await cp.client.get(url, params={"limit": 2})).json())
        assert [r.source_revision_config.repo_ref for r in first.resources] == ["r3", "r2"]
        assert first.offset == 2
        rest = (await cp.client.get(url, params={"limit": 2, "offset": 2})).json()
        assert [r["source_revision_config"]["repo_ref"] for r in rest["resources"]] == [
            "r1",
            "main",
        ]
        assert rest["offset"] == 4
        assert (await cp.client.get(url, params={"limit": 101})).status_code == 422


async def test_revision_errors(tmp_path: Path) -> None:
    """Unknown revision or deployment: 404 {detail}; a revision of another deployment too."""
    async with control_plane(tmp_path) as cp:
        a = await cp.create(git_host_body("a"))
        b = await cp.create(git_host_body("b"))
        missing = str(uuid.uuid4())
        other = await cp.client.get(
            f"/v2/deployments/{a['id']}/revisions/{b['latest_revision_id']}"
        )
        assert other.status_code == 404
        unknown = await cp.client.get(f"/v2/deployments/{a['id']}/revisions/{missing}")
        assert unknown.status_code == 404 and missing in unknown.json()["detail"]
        no_deployment = await cp.client.get(f"/v2/deployments/{missing}/revisions")
        assert no_deployment.json() == {"detail": f"Deployment ID {missing} not found."}
        bad = await cp.client.get(f"/v2/deployments/{a['id']}/revisions/nope")
        assert bad.status_code == 422
        huge = await cp.client.get(f"/v2/deployments/{a['id']}/revisions", params={"offset": 2**63})
        assert huge.status_code == 422 and huge.json()["detail"][0]["loc"] == ["query", "offset"]


async def test_git_host_revision_walks_to_deployed(tmp_path: Path) -> None:
    """With fractional timings a revision goes through every status and becomes active."""
    async with control_plane(tmp_path, build_seconds=0.2, deploy_seconds=0.2) as cp:
        created = await cp.create(git_host_body())
        rid = created["latest_revision_id"]
        seen = []
        for _ in range(42):
            seen.append(await cp.revision_status(created["id"], rid))
            cp.clock.advance(0.01)
        assert list(dict.fromkeys(seen)) == [
            "QUEUED",
            "AWAITING_BUILD",
            "BUILDING",
            "AWAITING_DEPLOY",
            "DEPLOYING",
            "DEPLOYED",
        ]
        deployment = await cp.get(created["id"])
        assert deployment["active_revision_id"] == rid and deployment["status"] == "READY"


async def test_docker_revision_skips_build(tmp_path: Path) -> None:
    """An external_docker revision never builds and is DEPLOYED after deploy_seconds."""
    async with control_plane(
        tmp_path, build_seconds=10, deploy_seconds=0.2, mode=Mode.SELF_HOSTED
    ) as cp:
        created = await cp.create(external_docker_body())
        rid = created["latest_revision_id"]
        seen = []
        for _ in range(22):
            seen.append(await cp.revision_status(created["id"], rid))
            cp.clock.advance(0.01)
        assert list(dict.fromkeys(seen)) == ["QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]


async def test_revision_updated_at_is_when_its_status_began(tmp_path: Path) -> None:
    """updated_at of a revision moves with its status and holds between changes."""
    async with control_plane(tmp_path, build_seconds=1, deploy_seconds=1) as cp:
        created = await cp.create(git_host_body())
        url = f"/v2/deployments/{created['id']}/revisions/{created['latest_revision_id']}"
        cp.clock.advance(0.5)
        building = (await cp.client.get(url)).json()
        cp.clock.advance(0.3)
        still = (await cp.client.get(url)).json()
        assert building["status"] == still["status"] == "BUILDING"
        assert building["updated_at"] == still["updated_at"] > building["created_at"]


@pytest.mark.parametrize(
    ("ref", "final"), [("feature/fail-build", "BUILD_FAILED"), ("fail-deploy", "DEPLOY_FAILED")]
)
async def test_failure_triggers(tmp_path: Path, ref: str, final: str) -> None:
    """repo_ref containing fail-build / fail-deploy ends in that failure; nothing is active."""
    async with control_plane(tmp_path) as cp:
        body = git_host_body()
        body["source_revision_config"]["repo_ref"] = ref
        created = await cp.create(body)
        cp.clock.advance(1)
        assert await cp.revision_status(created["id"], created["latest_revision_id"]) == final
        assert (await cp.get(created["id"]))["active_revision_id"] is None


async def test_newer_revision_skips_unfinished_and_keeps_the_active(tmp_path: Path) -> None:
    """Superseding an unfinished revision marks it SKIPPED; a DEPLOYED one stays active."""
    async with control_plane(tmp_path, build_seconds=0.2, deploy_seconds=0.2) as cp:
        created = await cp.create(git_host_body())
        first = created["latest_revision_id"]
        cp.clock.advance(1)
        second = (await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "b"}}))[
            "latest_revision_id"
        ]
        cp.clock.advance(0.1)
        third = (await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "c"}}))[
            "latest_revision_id"
        ]
        assert await cp.revision_status(created["id"], first) == "DEPLOYED"
        assert await cp.revision_status(created["id"], second) == "SKIPPED"
        assert (await cp.get(created["id"]))["active_revision_id"] == first
        cp.clock.advance(0.4)
        assert await cp.revision_status(created["id"], third) == "DEPLOYED"
        assert await cp.revision_status(created["id"], second) == "SKIPPED"
        assert (await cp.get(created["id"]))["active_revision_id"] == third


async def test_failed_revision_is_not_skipped_later(tmp_path: Path) -> None:
    """A revision that already failed keeps its failure when a newer one arrives."""
    async with control_plane(tmp_path) as cp:
        body = git_host_body()
        body["source_revision_config"]["repo_ref"] = "fail-build"
        created = await cp.create(body)
        cp.clock.advance(1)
        await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "main"}})
        status = await cp.revision_status(created["id"], created["latest_revision_id"])
        assert status == "BUILD_FAILED"


async def test_deployment_becomes_ready(tmp_path: Path) -> None:
    """A deployment is AWAITING_DATABASE for a tenth of deploy_seconds, then READY."""
    async with control_plane(tmp_path, deploy_seconds=1.0) as cp:
        created = await cp.create(git_host_body())
        assert created["status"] == "AWAITING_DATABASE"
        cp.clock.advance(0.09)
        assert (await cp.get(created["id"]))["status"] == "AWAITING_DATABASE"
        cp.clock.advance(0.01)
        assert (await cp.get(created["id"]))["status"] == "READY"


async def test_resending_the_revision_config_retries_a_failed_revision(tmp_path: Path) -> None:
    """The same source_revision_config sent again makes a new revision only when the
    latest one ended without becoming active (a retry); never on a healthy deployment."""
    async with control_plane(tmp_path) as cp:
        body = git_host_body()
        body["source_revision_config"]["repo_ref"] = "fail-deploy"
        created = await cp.create(body)
        same = {"source_revision_config": dict(body["source_revision_config"])}
        cp.clock.advance(1)
        retried = await cp.patch(created["id"], same)
        assert retried["latest_revision_id"] != created["latest_revision_id"]
        assert len(await cp.revisions(created["id"])) == 2
        healthy = await cp.create(git_host_body(name="healthy"))
        cp.clock.advance(1)
        kept = await cp.patch(healthy["id"], {"source_revision_config": {"repo_ref": "main"}})
        assert kept["latest_revision_id"] == healthy["latest_revision_id"]
