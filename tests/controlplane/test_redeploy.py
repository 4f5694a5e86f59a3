"""`POST /v2/deployments/{id}/revisions/{revision_id}/redeploy`, in both dialects: an
earlier DEPLOYED revision rolled out again as the deployment's new revision."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api.vocabulary import Dialect
from tests.controlplane.core_fixtures import (
    Plane,
    control_plane,
    git_host_body,
    github_body,
)

pytestmark = pytest.mark.anyio

UNKNOWN = "00000000-0000-4000-8000-0000000000ff"


def redeploy_path(deployment_id: str, revision_id: str) -> str:
    return f"/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"


async def two_revisions(cp: Plane, body: dict[str, object]) -> tuple[str, str, str]:
    """A deployment whose first revision deployed, then a second one deployed too: its id
    and the two revisions' ids."""
    created = await cp.create(body)
    cp.clock.advance(5)
    patched = await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "v2"}})
    cp.clock.advance(5)
    return created["id"], created["latest_revision_id"], patched["latest_revision_id"]


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_redeploy_rolls_an_earlier_revision_out_again(
    tmp_path: Path, dialect: Dialect
) -> None:
    """200 with the deployment: a new latest revision of the earlier one's source and
    config, the deployment's config back to it, and active once it has deployed."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    async with control_plane(tmp_path, dialect=dialect) as cp:
        deployment_id, first, second = await two_revisions(cp, body)
        response = await cp.client.post(redeploy_path(deployment_id, first))
        assert response.status_code == 200, response.text
        redeployed = response.json()
        assert redeployed["id"] == deployment_id
        assert redeployed["latest_revision_id"] not in (first, second)
        assert redeployed["active_revision_id"] == second  # until the new one deploys
        assert redeployed["source_revision_config"]["repo_ref"] == "main"
        cp.clock.advance(5)
        after = await cp.get(deployment_id)
        revisions = await cp.revisions(deployment_id)
    assert after["active_revision_id"] == redeployed["latest_revision_id"]
    assert [r["id"] for r in revisions][1:] == [second, first]
    newest = revisions[0]
    assert (newest["status"], newest["source"]) == ("DEPLOYED", body["source"])
    assert newest["source_revision_config"]["repo_ref"] == "main"
    assert (
        newest["source_revision_config"]["repo_commit_sha"]
        == (revisions[2]["source_revision_config"]["repo_commit_sha"])
    )


async def test_a_revision_that_never_deployed_cannot_be_redeployed(tmp_path: Path) -> None:
    """A revision that failed (or is still rolling out) is refused with 400 naming its
    status; the deployment is unchanged."""
    failing = {"repo_ref": "fail-build", "agent_config_path": "agent.json"}
    body = git_host_body(source_revision_config=failing)
    async with control_plane(tmp_path) as cp:
        created = await cp.create(body)
        rolling = await cp.client.post(redeploy_path(created["id"], created["latest_revision_id"]))
        cp.clock.advance(5)
        failed = await cp.client.post(redeploy_path(created["id"], created["latest_revision_id"]))
        after = await cp.get(created["id"])
    assert rolling.status_code == 400 and "QUEUED" in rolling.json()["detail"]
    assert failed.status_code == 400 and "BUILD_FAILED" in failed.json()["detail"]
    assert after["latest_revision_id"] == created["latest_revision_id"]


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_unknown_deployments_and_revisions_are_404(tmp_path: Path, dialect: Dialect) -> None:
    """An unknown deployment, or a revision of another deployment, is 404 `{detail}`."""
    body = git_host_body if dialect is Dialect.SEED else github_body
    async with control_plane(tmp_path, dialect=dialect) as cp:
        one = await cp.create(body("one"))
        other = await cp.create(body("other"))
        cp.clock.advance(5)
        no_deployment = await cp.client.post(redeploy_path(UNKNOWN, one["latest_revision_id"]))
        elsewhere = await cp.client.post(redeploy_path(one["id"], other["latest_revision_id"]))
    assert no_deployment.status_code == 404
    assert no_deployment.json() == {"detail": f"Deployment ID {UNKNOWN} not found."}
    assert elsewhere.status_code == 404
    assert elsewhere.json() == {"detail": f"Revision ID {other['latest_revision_id']} not found."}


@pytest.mark.parametrize(("dialect", "status"), [(Dialect.SEED, 409), (Dialect.SERVICE, 400)])
async def test_a_deployment_being_deleted_is_not_redeployed(
    tmp_path: Path, dialect: Dialect, status: int
) -> None:
    """While it is being deleted: 409 in the seed, 400 in the service (whose document
    lists no 409 for a redeploy)."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    async with control_plane(tmp_path, dialect=dialect, delete_seconds=60) as cp:
        created = await cp.create(body)
        cp.clock.advance(5)
        assert (await cp.client.delete(f"/v2/deployments/{created['id']}")).status_code == 204
        response = await cp.client.post(redeploy_path(created["id"], created["latest_revision_id"]))
    assert response.status_code == status
    assert response.json() == {"detail": f"Deployment ID {created['id']} is being deleted."}


async def test_a_patch_revision_source_is_the_new_revisions_source(tmp_path: Path) -> None:
    """The service's `revision_source` is honoured: the PATCH's new revision carries it
    (the deployment keeps its own source); a seed PATCH's unknown value is ignored."""
    async with control_plane(tmp_path, dialect=Dialect.SERVICE) as cp:
        created = await cp.create(github_body())
        patched = await cp.patch(
            created["id"],
            {"revision_source": "internal_source", "source_revision_config": {"repo_ref": "v2"}},
        )
        revisions = await cp.revisions(created["id"])
    assert patched["source"] == "github"
    assert [r["source"] for r in revisions] == ["internal_source", "github"]
    async with control_plane(tmp_path, db_name="seed.db") as seed:
        created = await seed.create(git_host_body())
        await seed.patch(
            created["id"], {"revision_source": "cli", "source_revision_config": {"repo_ref": "v2"}}
        )
        assert [r["source"] for r in await seed.revisions(created["id"])] == ["git_host"] * 2
