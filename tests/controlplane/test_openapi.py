"""The checked-in OpenAPI document matches the app, and says what the app does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from planner.controlplane.openapi import REGENERATE_COMMAND, SCHEMA_PATH, render_openapi
from planner.controlplane.validation import UUID_LIST_PATTERN

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def generated() -> str:
    """The document as the app generates it now (built once: it takes a moment)."""
    return render_openapi()


@pytest.fixture(scope="module")
def document(generated: str) -> dict[str, Any]:
    return dict(json.loads(generated))


def test_checked_in_openapi_is_current(generated: str) -> None:
    """schemas/control-plane.openapi.json equals what the app generates now."""
    checked_in = (REPO_ROOT / SCHEMA_PATH).read_text(encoding="utf-8")
    assert checked_in == generated, (
        f"{SCHEMA_PATH} is out of date; regenerate it with `{REGENERATE_COMMAND}`"
    )


def test_openapi_declares_the_three_auth_schemes(document: dict[str, Any]) -> None:
    """API key, tenant id and bearer are declared as security schemes, and used by the routes."""
    schemes = document["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {"in": "header", "name": "X-Api-Key", "type": "apiKey"}
    assert schemes["TenantId"]["name"] == "X-Tenant-Id"
    assert schemes["Bearer"] == {"scheme": "bearer", "type": "http"}
    providers = document["paths"]["/v2/auth/providers"]["get"]
    assert {"ApiKey": []} in providers["security"]
    assert "security" not in document["paths"]["/metrics"]["get"]


def test_openapi_validation_error_is_the_spec_shape(document: dict[str, Any]) -> None:
    """A 422 entry has exactly loc, msg and type, all required."""
    error = document["components"]["schemas"]["ValidationErrorItem"]
    assert set(error["properties"]) == {"loc", "msg", "type"}
    assert sorted(error["required"]) == ["loc", "msg", "type"]


def test_openapi_lists_the_catalog_routes(document: dict[str, Any]) -> None:
    """The provider, integration and repository routes are in the document."""
    paths = document["paths"]
    assert {
        "/v2/auth/providers",
        "/v1/integrations/git_host/install",
        "/v1/integrations/git_host/{integration_id}/repos",
    } <= set(paths)


def test_app_serves_the_document_and_swagger_ui(cp_client: TestClient) -> None:
    """/openapi.json is the checked-in document and /docs the Swagger UI page, without a key."""
    checked_in = json.loads((REPO_ROOT / SCHEMA_PATH).read_text(encoding="utf-8"))
    anonymous = {"X-Api-Key": ""}
    assert cp_client.get("/openapi.json", headers=anonymous).json() == checked_in
    page = cp_client.get("/docs", headers=anonymous)
    assert page.status_code == 200 and "swagger-ui" in page.text and "/openapi.json" in page.text


def test_every_authenticated_operation_documents_auth_and_fault_statuses(
    document: dict[str, Any],
) -> None:
    """Operations behind a key list 400, 401, 403, 429 and 503 beside their own statuses."""
    operations = [op for item in document["paths"].values() for op in item.values()]
    secured = [op for op in operations if "security" in op]
    assert len(secured) == len(operations) - 2  # all but /metrics and the upload URL
    for operation in secured:
        assert {"400", "401", "403", "429", "503"} <= set(operation["responses"])


def test_comma_separated_id_filters_declare_their_pattern(document: dict[str, Any]) -> None:
    """`deployment_ids` and `tag_value_ids` of the list say they hold uuids."""
    parameters = document["paths"]["/v2/deployments"]["get"]["parameters"]
    for name in ("deployment_ids", "tag_value_ids"):
        (parameter,) = [p for p in parameters if p["name"] == name]
        assert parameter["schema"]["anyOf"][0]["pattern"] == UUID_LIST_PATTERN
