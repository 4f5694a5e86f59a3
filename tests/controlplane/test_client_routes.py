"""What the official clients use beyond the seed's routes: deleting one deployment, a new
revision by POST, `display_name`, the revision list's status filter, and the defaults a
read echoes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from planner.api.rules import Mode
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import SCHEMA, Store

from .core_fixtures import control_plane, external_docker_body, git_host_body

pytestmark = pytest.mark.anyio
MISSING = "00000000-0000-4000-8000-0000000000ff"


async def test_delete_one_walks_awaiting_delete_final_delete_then_404(tmp_path: Path) -> None:
    """DELETE answers 204; the deployment shows AWAITING_DELETE, then AWAITING_FINAL_DELETE,
    then is gone (404); deleting it again meanwhile changes nothing."""
    async with control_plane(tmp_path, delete_seconds=1.0) as cp:
        created = await cp.create(git_host_body("a"))
        path = f"/v2/deployments/{created['id']}"
        response = await cp.client.delete(path)
        assert response.status_code == 204 and response.content == b""
        assert (await cp.get(created["id"]))["status"] == "AWAITING_DELETE"
        cp.clock.advance(0.5)
        assert (await cp.client.delete(path)).status_code == 204
        assert (await cp.get(created["id"]))["status"] == "AWAITING_FINAL_DELETE"
        listed = await cp.client.get("/v2/deployments", params={"status": "AWAITING_FINAL_DELETE"})
        assert [d["id"] for d in listed.json()["resources"]] == [created["id"]]
        cp.clock.advance(0.5)
        gone = await cp.client.get(path)
        assert gone.status_code == 404
        assert gone.json() == {"detail": f"Deployment ID {created['id']} not found."}


async def test_delete_one_of_an_unknown_id_is_404_detail(tmp_path: Path) -> None:
    """An id the workspace does not have is 404 {detail}."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.delete(f"/v2/deployments/{MISSING}")
        assert response.status_code == 404
        assert response.json() == {"detail": f"Deployment ID {MISSING} not found."}


async def test_post_revision_makes_one_revision_and_merges_its_fields(tmp_path: Path) -> None:
    """POST .../revisions answers 201 with the new revision (the older one SKIPPED), and
    its source_revision_config, install command, resource_spec and secrets are stored."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a"))
        response = await cp.client.post(
            f"/v2/deployments/{created['id']}/revisions",
            json={
                "source_revision_config": {"repo_ref": "release"},
                "source_config": {"install_command": "pip install .", "resource_spec": {"cpu": 1}},
                "secrets": [{"name": "LOG_LEVEL", "value": "debug"}],
            },
        )
        assert response.status_code == 201, response.text
        revision = response.json()
        assert revision["status"] == "QUEUED"
        assert revision["source_revision_config"]["repo_ref"] == "release"
        live = await cp.get(created["id"])
        assert live["latest_revision_id"] == revision["id"]
        assert live["source_revision_config"]["agent_config_path"] == "agent.json"
        assert live["source_config"]["install_command"] == "pip install ."
        assert live["source_config"]["resource_spec"] == {"cpu": 1}
        assert live["secrets"] == [{"name": "LOG_LEVEL", "value": "debug"}]
        statuses = [r["status"] for r in await cp.revisions(created["id"])]
        assert statuses == ["QUEUED", "SKIPPED"]


async def test_post_revision_unchanged_still_makes_a_revision(tmp_path: Path) -> None:
    """Unlike a PATCH, a POST with the same config is one more revision."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a"))
        body = {"source_revision_config": {"repo_ref": "main"}}
        response = await cp.client.post(f"/v2/deployments/{created['id']}/revisions", json=body)
        assert response.status_code == 201
        assert len(await cp.revisions(created["id"])) == 2


async def test_post_revision_refusals(tmp_path: Path) -> None:
    """No source_revision_config: 422; a field of another source: refused naming it; an
    unknown deployment: 404; one being deleted: 409."""
    async with control_plane(tmp_path, delete_seconds=10) as cp:
        created = await cp.create(git_host_body("a"))
        path = f"/v2/deployments/{created['id']}/revisions"
        missing = await cp.client.post(path, json={})
        assert missing.status_code == 422
        assert missing.json()["detail"][0]["loc"] == ["body", "source_revision_config"]
        foreign = await cp.client.post(path, json={"source_revision_config": {"image_uri": "i"}})
        # 400 as a PATCH answers it here; 409 once such conflicts are 409 (issue 20)
        assert foreign.status_code in (400, 409) and "image_uri" in foreign.json()["detail"]
        unknown = await cp.client.post(
            f"/v2/deployments/{MISSING}/revisions", json={"source_revision_config": {}}
        )
        assert unknown.status_code == 404
        await cp.client.delete(f"/v2/deployments/{created['id']}")
        deleting = await cp.client.post(path, json={"source_revision_config": {"repo_ref": "x"}})
        assert deleting.status_code == 409


async def test_post_revision_refuses_secret_names_as_a_patch_does(tmp_path: Path) -> None:
    """A secret named "" (or not an environment variable name) is a 422 naming it, as on
    PATCH; nothing is stored, so reads stay valid."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a"))
        path = f"/v2/deployments/{created['id']}/revisions"
        secrets = [
            {"name": "OK", "value": "v"},
            {"name": "", "value": "v"},
            {"name": "1x", "value": "v"},
        ]
        body = {"source_revision_config": {"repo_ref": "main"}, "secrets": secrets}
        refused = await cp.client.post(path, json=body)
        assert refused.status_code == 422
        locs = [error["loc"] for error in refused.json()["detail"]]
        assert locs == [["body", "secrets", 1, "name"], ["body", "secrets", 2, "name"]]
        patched = await cp.client.patch(f"/v2/deployments/{created['id']}", json=body)
        assert [e["loc"] for e in patched.json()["detail"]] == locs
        assert len(await cp.revisions(created["id"])) == 1
        fine = await cp.client.post(path, json={**body, "secrets": secrets[:1]})
        assert fine.status_code == 201


async def test_display_name_is_set_changed_in_place_and_read_back(tmp_path: Path) -> None:
    """display_name set on create, changed by PATCH without a revision, on every read; a
    null keeps it and "" is refused (422)."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a", display_name="Support"))
        assert created["display_name"] == "Support"
        patched = await cp.patch(created["id"], {"display_name": "Support agent"})
        assert patched["display_name"] == "Support agent"
        assert patched["latest_revision_id"] == created["latest_revision_id"]
        assert (await cp.patch(created["id"], {"display_name": None}))["display_name"] == (
            "Support agent"
        )
        listed = (await cp.client.get("/v2/deployments")).json()["resources"]
        assert [d["display_name"] for d in listed] == ["Support agent"]
        empty = await cp.client.patch(f"/v2/deployments/{created['id']}", json={"display_name": ""})
        assert empty.status_code == 422
        assert empty.json()["detail"][0]["loc"] == ["body", "display_name"]
        plain = await cp.create(git_host_body("b"))
        assert plain["display_name"] is None


async def test_revision_list_filters_by_status_with_paging(tmp_path: Path) -> None:
    """status=A,B keeps revisions in either status, newest first, paged by limit/offset."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a"))
        for ref in ("one", "two", "three"):
            await cp.patch(created["id"], {"source_revision_config": {"repo_ref": ref}})
        path = f"/v2/deployments/{created['id']}/revisions"
        skipped = (await cp.client.get(path, params={"status": "SKIPPED"})).json()
        assert len(skipped["resources"]) == 3 and skipped["offset"] == 3
        both = await cp.client.get(path, params={"status": "QUEUED,SKIPPED", "limit": 2})
        refs = [r["source_revision_config"]["repo_ref"] for r in both.json()["resources"]]
        assert refs == ["three", "two"] and both.json()["offset"] == 2
        rest = await cp.client.get(
            path, params={"status": "QUEUED,SKIPPED", "limit": 2, "offset": 2}
        )
        assert [r["source_revision_config"]["repo_ref"] for r in rest.json()["resources"]] == [
            "one",
            "main",
        ]
        none = (await cp.client.get(path, params={"status": "DEPLOYED"})).json()
        assert none == {"resources": [], "offset": 0}
        bad = await cp.client.get(path, params={"status": "DONE"})
        assert bad.status_code == 422


async def test_reads_echo_the_service_defaults_where_the_source_has_them(tmp_path: Path) -> None:
    """git_host reads carry deployment_type prod and build_on_push false when not sent;
    external_docker reads echo both defaults too (a request may not set them, and they
    are never stored: a PATCH setting them is still refused)."""
    async with control_plane(tmp_path) as cp:
        body = git_host_body("a")
        del body["source_config"]["build_on_push"]
        git = await cp.create(body)
        assert git["source_config"]["deployment_type"] == "prod"
        assert git["source_config"]["build_on_push"] is False
    async with control_plane(tmp_path / "hosted", mode=Mode.SELF_HOSTED) as cp:
        docker = await cp.create(external_docker_body("b"))
        assert docker["source_config"]["deployment_type"] == "prod"
        assert docker["source_config"]["build_on_push"] is False
        again = await cp.client.get(f"/v2/deployments/{docker['id']}")
        assert again.json()["source_config"]["deployment_type"] == "prod"
        listed = await cp.client.get("/v2/deployments")
        assert listed.json()["resources"][0]["source_config"]["build_on_push"] is False
        refused = await cp.client.patch(
            f"/v2/deployments/{docker['id']}", json={"source_config": {"build_on_push": True}}
        )
        assert refused.status_code in (400, 409, 422)


def test_a_database_made_before_display_name_gains_the_column(tmp_path: Path) -> None:
    """A store file without the display_name column is upgraded in place when opened."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA.replace("    display_name TEXT,\n", ""))
        assert "display_name" not in {r[1] for r in conn.execute("PRAGMA table_info(deployments)")}
    store = Store(ServerSettings(db_path=path))
    try:
        with store.snapshot() as tx:
            columns = {row[1] for row in tx.conn.execute("PRAGMA table_info(deployments)")}
        assert "display_name" in columns
    finally:
        store.close()
