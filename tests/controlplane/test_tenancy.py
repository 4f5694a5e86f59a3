"""Tenant isolation at the route level: one workspace never sees, changes or deletes
another's deployments (needs the /v2/deployments routes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planner.controlplane.settings import ServerSettings
from tests.controlplane.conftest import TENANT_A, TENANT_B
from tests.controlplane.core_fixtures import git_host_body

A = {"X-Api-Key": "key-a"}
B = {"X-Api-Key": "key-b"}
BOTH_AS_A = {"X-Api-Key": "key-ab", "X-Tenant-Id": TENANT_A}
BOTH_AS_B = {"X-Api-Key": "key-ab", "X-Tenant-Id": TENANT_B}


@pytest.fixture
def client(tmp_path: Path, make_client: Callable[[ServerSettings], TestClient]) -> TestClient:
    """Keys: key-a (workspace A), key-b (workspace B), key-ab (both)."""
    settings = ServerSettings(
        db_path=tmp_path / "tenancy.db",
        build_seconds=0.1,
        deploy_seconds=0.1,
        delete_seconds=0.1,
        api_keys={"key-a": [TENANT_A], "key-b": [TENANT_B], "key-ab": [TENANT_A, TENANT_B]},
    )
    return make_client(settings)


@pytest.fixture
def created(client: TestClient) -> dict[str, Any]:
    """A deployment created by workspace A."""
    response = client.post("/v2/deployments", json=git_host_body("agent-a"), headers=A)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_created_deployment_belongs_to_the_callers_workspace(created: dict[str, Any]) -> None:
    """The deployment's tenant_id is the workspace that created it."""
    assert created["tenant_id"] == TENANT_A


def test_other_workspace_cannot_list_it(client: TestClient, created: dict[str, Any]) -> None:
    """Workspace B's listing (plain, or filtered by the id) does not show A's deployment."""
    listed_a = client.get("/v2/deployments", headers=A).json()["resources"]
    assert [d["id"] for d in listed_a] == [created["id"]]
    assert client.get("/v2/deployments", headers=B).json()["resources"] == []
    by_id = client.get("/v2/deployments", params={"deployment_ids": created["id"]}, headers=B)
    assert by_id.json()["resources"] == []


def test_other_workspace_cannot_get_it(client: TestClient, created: dict[str, Any]) -> None:
    """GET of A's deployment and of its revisions from workspace B is 404."""
    deployment_id = created["id"]
    assert client.get(f"/v2/deployments/{deployment_id}", headers=B).status_code == 404
    revisions = f"/v2/deployments/{deployment_id}/revisions"
    assert client.get(revisions, headers=B).status_code == 404
    revision = f"{revisions}/{created['latest_revision_id']}"
    assert client.get(revision, headers=B).status_code == 404
    assert client.get(revision, headers=A).status_code == 200


def test_other_workspace_cannot_patch_it(client: TestClient, created: dict[str, Any]) -> None:
    """PATCH from workspace B is 404 and leaves A's deployment unchanged."""
    path = f"/v2/deployments/{created['id']}"
    patch = {"source_revision_config": {"repo_ref": "evil"}}
    assert client.patch(path, json=patch, headers=B).status_code == 404
    after = client.get(path, headers=A).json()
    assert after["source_revision_config"]["repo_ref"] == "main"
    assert after["latest_revision_id"] == created["latest_revision_id"]


def test_other_workspace_cannot_delete_it(client: TestClient, created: dict[str, Any]) -> None:
    """Bulk DELETE from workspace B is 404 naming the id, and A's deployment stays."""
    response = client.delete("/v2/deployments", params={"deployment_ids": created["id"]}, headers=B)
    assert response.status_code == 404
    assert created["id"] in response.json()["detail"]
    after = client.get(f"/v2/deployments/{created['id']}", headers=A)
    assert after.status_code == 200
    assert after.json()["status"] != "AWAITING_DELETE"


def test_spanning_key_sees_only_the_selected_workspace(
    client: TestClient, created: dict[str, Any]
) -> None:
    """A key spanning A and B sees A's deployment as A, not as B."""
    path = f"/v2/deployments/{created['id']}"
    assert client.get(path, headers=BOTH_AS_A).status_code == 200
    assert client.get(path, headers=BOTH_AS_B).status_code == 404
    assert client.get(path, headers={"X-Api-Key": "key-ab"}).status_code == 403


def test_same_name_in_two_workspaces(client: TestClient, created: dict[str, Any]) -> None:
    """Workspace B may use a name workspace A already has."""
    response = client.post("/v2/deployments", json=git_host_body("agent-a"), headers=B)
    assert response.status_code == 201, response.text
    assert response.json()["tenant_id"] == TENANT_B


def test_tracing_projects_are_per_workspace(client: TestClient, created: dict[str, Any]) -> None:
    """The local tracing-project listing shows A's project to A only."""
    projects_a = client.get("/local/tracing-projects", headers=A)
    assert projects_a.status_code == 200
    assert "agent-a" in projects_a.text
    assert "agent-a" not in client.get("/local/tracing-projects", headers=B).text
