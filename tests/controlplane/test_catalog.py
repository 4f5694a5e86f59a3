"""Catalog routes: OAuth providers, git host integrations and their repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from planner.api.support_models import Integration, OAuthProvider, Repository
from planner.controlplane.settings import ServerSettings
from tests.controlplane.conftest import TENANT_A, TENANT_B

INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"


def test_providers_are_a_bare_array_of_oauth_providers(cp_client: TestClient) -> None:
    """GET /v2/auth/providers returns a JSON array of complete OAuth provider objects."""
    response = cp_client.get("/v2/auth/providers")
    assert response.status_code == 200
    providers = [OAuthProvider.model_validate(item) for item in response.json()]
    assert len(providers) == 2
    assert {"code_challenge_method", "created_at", "is_dynamic_client"} <= set(response.json()[0])


def test_integrations_are_a_bare_array(cp_client: TestClient) -> None:
    """GET /v1/integrations/git_host/install returns `[{id, installation_id, name}]`."""
    response = cp_client.get("/v1/integrations/git_host/install")
    assert response.status_code == 200
    assert [set(item) for item in response.json()] == [{"id", "installation_id", "name"}]
    assert Integration.model_validate(response.json()[0]).id == INTEGRATION


def test_repositories_of_an_integration(cp_client: TestClient) -> None:
    """The repository listing is a bare array of the six-field repository records."""
    response = cp_client.get(f"/v1/integrations/git_host/{INTEGRATION}/repos")
    assert response.status_code == 200
    repos = [Repository.model_validate(item) for item in response.json()]
    assert len(repos) >= 3
    assert all(r.host_integration_id == INTEGRATION for r in repos)
    assert set(response.json()[0]) == {
        "host_integration_id",
        "id",
        "name",
        "owner",
        "url",
        "default_branch",
    }


def test_unknown_integration_is_404_naming_it(cp_client: TestClient) -> None:
    """Repositories of an integration the workspace does not have: 404 naming the id."""
    missing = "9a0e7c55-0000-4000-8000-00000000ffff"
    response = cp_client.get(f"/v1/integrations/git_host/{missing}/repos")
    assert response.status_code == 404
    assert missing in response.json()["detail"]


def test_catalog_routes_require_a_key(cp_client: TestClient) -> None:
    """Without a key the catalog routes answer 401."""
    for path in ("/v2/auth/providers", "/v1/integrations/git_host/install"):
        assert cp_client.get(path, headers={"X-Api-Key": ""}).status_code == 401


def test_scoped_seed_entries_are_per_workspace(
    tmp_path: Path, make_client: Callable[[ServerSettings], TestClient]
) -> None:
    """An integration scoped to workspace A is invisible (404) to workspace B."""
    seed = tmp_path / "seed.toml"
    seed.write_text(
        f'[[integrations]]\nid = "{INTEGRATION}"\ninstallation_id = "1"\nname = "a"\n'
        f'tenant_ids = ["{TENANT_A}"]\n'
    )
    settings = ServerSettings(
        db_path=tmp_path / "x.db", seed_file=seed, api_keys={"k": [TENANT_A, TENANT_B]}
    )
    client = make_client(settings)
    a = {"X-Api-Key": "k", "X-Tenant-Id": TENANT_A}
    b = {"X-Api-Key": "k", "X-Tenant-Id": TENANT_B}
    assert len(client.get("/v1/integrations/git_host/install", headers=a).json()) == 1
    assert client.get("/v1/integrations/git_host/install", headers=b).json() == []
    repos = f"/v1/integrations/git_host/{INTEGRATION}/repos"
    assert client.get(repos, headers=a).json() == []
    assert client.get(repos, headers=b).status_code == 404
