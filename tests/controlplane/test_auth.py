"""Auth and workspace selection of the local control plane (`get_context`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from planner.controlplane.context import RequestContext, select_workspace
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings
from tests.controlplane.conftest import TENANT_A, TENANT_B

PROVIDERS = "/v2/auth/providers"


@pytest.fixture
def client(tmp_path: Path, make_client: Callable[[ServerSettings], TestClient]) -> TestClient:
    """Keys: `solo` (workspace A), `multi` (A and B), `plain` (the default workspace)."""
    settings = ServerSettings(
        db_path=tmp_path / "auth.db",
        api_keys={"solo": [TENANT_A], "multi": [TENANT_A, TENANT_B], "plain": [DEFAULT_TENANT_ID]},
    )
    return make_client(settings)


def test_missing_key_is_401(client: TestClient) -> None:
    """A request without any key is refused with 401 and a `{detail}` body."""
    response = client.get(PROVIDERS)
    assert response.status_code == 401
    assert "Missing API key" in response.json()["detail"]
    assert response.headers["www-authenticate"] == "Bearer"


def test_wrong_key_is_401_without_echoing_it(client: TestClient) -> None:
    """An unknown key gets 401, and the detail does not repeat the key."""
    response = client.get(PROVIDERS, headers={"X-Api-Key": "not-a-key-s3cr3t"})
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid API key."}
    assert "s3cr3t" not in response.text


def test_bearer_token_is_accepted(client: TestClient) -> None:
    """`Authorization: Bearer <key>` authenticates like `X-Api-Key`."""
    response = client.get(PROVIDERS, headers={"Authorization": "Bearer solo"})
    assert response.status_code == 200
    assert isinstance(response.json(), list)


def test_wrong_bearer_token_is_401(client: TestClient) -> None:
    """A bearer token that is not a known key is refused."""
    assert client.get(PROVIDERS, headers={"Authorization": "Bearer nope"}).status_code == 401


def test_x_api_key_wins_over_bearer(client: TestClient) -> None:
    """When both are sent, X-Api-Key decides (a bad one is not rescued by a good bearer)."""
    headers = {"X-Api-Key": "nope", "Authorization": "Bearer solo"}
    assert client.get(PROVIDERS, headers=headers).status_code == 401


def test_single_workspace_key_needs_no_tenant_header(client: TestClient) -> None:
    """A key with one workspace uses it when X-Tenant-Id is absent."""
    assert client.get(PROVIDERS, headers={"X-Api-Key": "solo"}).status_code == 200


def test_tenant_header_selects_an_allowed_workspace(client: TestClient) -> None:
    """A multi-workspace key with X-Tenant-Id naming one of its workspaces is served."""
    for tenant in (TENANT_A, TENANT_B.upper()):
        headers = {"X-Api-Key": "multi", "X-Tenant-Id": tenant}
        assert client.get(PROVIDERS, headers=headers).status_code == 200


def test_foreign_workspace_is_403(client: TestClient) -> None:
    """X-Tenant-Id naming a workspace the key has no access to is 403."""
    response = client.get(PROVIDERS, headers={"X-Api-Key": "solo", "X-Tenant-Id": TENANT_B})
    assert response.status_code == 403
    assert TENANT_B in response.json()["detail"]


def test_spanning_key_without_tenant_is_403(client: TestClient) -> None:
    """A key spanning workspaces without X-Tenant-Id gets 403 'requires workspace specification'."""
    response = client.get(PROVIDERS, headers={"X-Api-Key": "multi"})
    assert response.status_code == 403
    assert "requires workspace specification" in response.json()["detail"]


def test_malformed_tenant_header_is_403(client: TestClient) -> None:
    """An X-Tenant-Id that is not a uuid is 403 (no key has access to such a workspace)."""
    response = client.get(PROVIDERS, headers={"X-Api-Key": "solo", "X-Tenant-Id": "acme"})
    assert response.status_code == 403
    assert "not a valid workspace id" in response.json()["detail"]


def test_every_api_route_requires_a_key(client: TestClient) -> None:
    """Every route in the OpenAPI document but /metrics and the upload URL (whose token is
    its credential, tests/controlplane/test_artifacts.py) answers 401 without a key."""
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    checked = 0
    for path, operations in paths.items():
        if path in ("/metrics", "/local/uploads/{upload_id}"):
            continue
        concrete = path.replace("{", "").replace("}", "")
        concrete = concrete.replace("deployment_id", "00000000-0000-4000-8000-0000000000d1")
        concrete = concrete.replace("revision_id", "00000000-0000-4000-8000-0000000000e1")
        concrete = concrete.replace("integration_id", "00000000-0000-4000-8000-0000000000f1")
        concrete = concrete.replace("project_id", "00000000-0000-4000-8000-0000000000d1")
        concrete = concrete.replace("listener_id", "00000000-0000-4000-8000-0000000000c1")
        for method in operations:
            response = client.request(method.upper(), concrete)
            assert response.status_code == 401, (method, path, response.text)
            checked += 1
    assert checked >= 3


def test_metrics_need_no_key(client: TestClient) -> None:
    """GET /metrics is served without any key, like any Prometheus endpoint."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert "controlplane_requests_total" in response.text


def test_select_workspace_rules() -> None:
    """The workspace rules as a pure function: header wins, single key default, else 403."""
    assert select_workspace(None, [TENANT_A]) == TENANT_A
    assert select_workspace(TENANT_B.upper(), [TENANT_A, TENANT_B]) == TENANT_B
    with pytest.raises(Exception, match="403"):
        select_workspace(None, [TENANT_A, TENANT_B])


def test_request_context_repr_hides_the_key(cp_settings: ServerSettings) -> None:
    """The context's repr (what a log line would show) never holds the key."""
    context = RequestContext(
        tenant_id=TENANT_A,
        api_key="very-secret",
        store=None,  # type: ignore[arg-type]
        settings=cp_settings,
    )
    assert "very-secret" not in repr(context)
    assert TENANT_A in repr(context)
