"""Error bodies of the local control plane: `{detail}` everywhere, 422 in the spec's shape."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from planner.api.models import (
    DeploymentCreate,
    ErrorBody,
    ResourceSpec,
    Secret,
    SecretReference,
    SourceConfig,
    SourceRevisionConfig,
)
from planner.api.other_models import HTTPValidationError
from planner.api.rules import Mode
from planner.controlplane.app import create_app, validation_problems
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from tests.strategies import json_values


def test_422_has_only_loc_msg_type(cp_client: TestClient) -> None:
    """A validation error lists `{loc, msg, type}` entries and nothing else (no input echo)."""
    response = cp_client.get("/v1/integrations/git_host/not-a-uuid-secret/repos")
    assert response.status_code == 422
    body = response.json()
    HTTPValidationError.model_validate(body)
    assert body["detail"][0]["loc"] == ["path", "integration_id"]
    assert all(set(item) == {"loc", "msg", "type"} for item in body["detail"])
    assert "not-a-uuid-secret" not in response.text


def test_422_messages_do_not_start_with_pydantics_wrapper(cp_client: TestClient) -> None:
    """A custom validator's message reads as itself, not as `Value error, ...`."""
    body = {
        "name": "x",
        "source": "git_host",
        "source_config": {"integration_id": "nope", "repo_url": "https://r"},
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "a.json"},
    }
    response = cp_client.post("/v2/deployments", json=body)
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "source_config", "integration_id"]
    assert problem["msg"] == "Input should be a valid UUID"


def test_validation_problems_drop_input_ctx_and_url() -> None:
    """Only loc, msg and type survive from a pydantic error entry."""
    raw = [
        {
            "loc": ("body", "secrets", 0),
            "msg": "bad",
            "type": "x",
            "input": "s3cr3t",
            "ctx": {"v": "s3cr3t"},
            "url": "https://errors.pydantic.dev",
        }
    ]
    assert validation_problems(raw) == [{"loc": ["body", "secrets", 0], "msg": "bad", "type": "x"}]


def test_unknown_route_is_404_detail(cp_client: TestClient) -> None:
    """An unknown path answers 404 `{detail}`."""
    response = cp_client.get("/v3/nothing")
    assert response.status_code == 404
    ErrorBody.model_validate(response.json())


def test_wrong_method_is_405_detail(cp_client: TestClient) -> None:
    """A known path with an unsupported method answers 405 `{detail}`."""
    response = cp_client.delete("/v2/auth/providers")
    assert response.status_code == 405
    ErrorBody.model_validate(response.json())


def test_405_allow_lists_every_method_of_the_path(cp_client: TestClient) -> None:
    """The `Allow` of a 405 names every method some route serves at the path."""
    deployment = "/v2/deployments/00000000-0000-4000-8000-00000000000d"
    assert cp_client.options(deployment).headers["allow"] == "DELETE, GET, PATCH"
    assert cp_client.put("/v2/deployments").headers["allow"] == "DELETE, GET, POST"
    assert cp_client.post("/metrics").headers["allow"] == "GET"


def test_unparseable_body_is_400_detail(cp_client: TestClient) -> None:
    """A body that is not JSON answers 400 `{detail}`, not a 422 about its fields."""
    for method in ("POST", "PATCH"):
        path = "/v2/deployments" + ("/00000000-0000-4000-8000-00000000000d" * (method == "PATCH"))
        response = cp_client.request(
            method, path, content=b'{"name": ', headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400
        assert ErrorBody.model_validate(response.json()).detail == (
            "The request body is not valid JSON."
        )


def test_self_hosted_mode_serves_the_api_host_prefix(
    tmp_path: Path, make_client: Callable[[ServerSettings], TestClient]
) -> None:
    """In self-hosted mode the API answers under /api-host too, as self-hosted installs do."""
    settings = ServerSettings(db_path=tmp_path / "x.db", mode=Mode.SELF_HOSTED)
    client = make_client(settings)
    headers = {"X-Api-Key": EMBEDDED_API_KEY}
    assert client.get("/api-host/v2/auth/providers", headers=headers).status_code == 200
    assert client.get("/v2/auth/providers", headers=headers).status_code == 200


def test_cloud_mode_serves_the_api_host_prefix_too(cp_client: TestClient) -> None:
    """In cloud mode the API answers under /api-host as well (the Terraform provider sends
    its deployment calls to `<api_url>/api-host` for any URL but the SaaS host); the prefix
    is taken once, so `/api-host/api-host/...` is not the API."""
    assert cp_client.get("/api-host/v2/auth/providers").status_code == 200
    assert cp_client.get("/api-host/v2/deployments").json()["resources"] == []
    assert cp_client.get("/api-host/api-host/v2/auth/providers").status_code == 404


def test_store_closes_on_shutdown(cp_settings: ServerSettings) -> None:
    """Leaving the app's lifespan closes the store."""
    app = create_app(cp_settings)
    closed: list[bool] = []
    original_close = app.state.store.close

    def close() -> None:
        closed.append(True)
        original_close()

    app.state.store.close = close
    with TestClient(app):
        assert closed == []
    assert closed == [True]


def test_unexpected_error_is_500_detail_and_counted(cp_settings: ServerSettings) -> None:
    """A handler crashing answers 500 `{detail}` without internals, and metrics count the 500."""
    app = create_app(cp_settings)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("internal secret state")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/boom")
        metrics = client.get("/metrics").text
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error."}
    assert 'controlplane_requests_total{method="GET",route="unmatched",status="500"} 1' in metrics


def _field_paths() -> list[tuple[str, ...]]:
    """Every field of a create body, nested ones included (list items at index 0)."""
    models: dict[str, type[BaseModel]] = {
        "source_config": SourceConfig,
        "source_revision_config": SourceRevisionConfig,
        "source_config.resource_spec": ResourceSpec,
        "secrets.0": Secret,
        "secret_references.0": SecretReference,
    }
    paths: list[tuple[str, ...]] = [(name,) for name in DeploymentCreate.model_fields]
    for prefix, model in models.items():
        paths += [(*prefix.split("."), name) for name in model.model_fields]
    return paths


def _with_value(body: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of `body` with `value` at `path`; missing objects/lists on the way are made."""
    data = copy.deepcopy(body)
    node: Any = data
    for part, following in itertools.pairwise(path):
        child: Any = [{}] if following.isdigit() else {}
        if part.isdigit():
            node = node[int(part)]
            continue
        if not isinstance(node.get(part), dict | list):
            node[part] = child
        node = node[part]
    last = path[-1]
    if last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return data


def send_json(client: TestClient, method: str, url: str, body: Any) -> Any:
    """Send `body` as JSON as Python writes it (`NaN`, `Infinity` included)."""
    headers = {"Content-Type": "application/json"}
    return client.request(method, url, content=json.dumps(body), headers=headers)


FIELD_PATHS = _field_paths()
VALID_CREATE = {
    "name": "fuzzed",
    "source": "internal_docker",
    "source_config": {"resource_spec": {"cpu": 1}},
    "source_revision_config": {"image_uri": "registry/agent:1"},
    "secrets": [{"name": "A", "value": "b"}],
}
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(path=st.sampled_from(FIELD_PATHS), value=json_values)
def test_any_json_value_in_any_create_field_is_not_a_500(
    cp_client: TestClient, path: tuple[str, ...], value: Any
) -> None:
    """Any JSON value in any field of a create body gets an answer below 500."""
    body = _with_value(VALID_CREATE, path, value)
    response = send_json(cp_client, "POST", "/v2/deployments", body)
    assert response.status_code < 500, (path, value, response.text)
    if response.status_code == 422:
        HTTPValidationError.model_validate(response.json())


@FUZZ
@given(path=st.sampled_from(FIELD_PATHS), value=json_values)
def test_any_json_value_in_any_patch_field_is_not_a_500(
    cp_client: TestClient, path: tuple[str, ...], value: Any
) -> None:
    """Any JSON value in any field of a PATCH body gets an answer below 500."""
    created = cp_client.post("/v2/deployments", json={**VALID_CREATE, "name": "patched"})
    listed = cp_client.get("/v2/deployments", params={"name_contains": "patched"}).json()
    ids = [created.json()["id"]] if created.status_code == 201 else []
    deployment_id = (ids or [d["id"] for d in listed["resources"]])[0]
    body = _with_value({}, path, value)
    response = send_json(cp_client, "PATCH", f"/v2/deployments/{deployment_id}", body)
    assert response.status_code < 500, (path, value, response.text)


@FUZZ
@given(body=json_values)
def test_any_json_document_as_a_body_is_not_a_500(cp_client: TestClient, body: Any) -> None:
    """A create or PATCH body that is any JSON value at all gets an answer below 500."""
    response = send_json(cp_client, "POST", "/v2/deployments", body)
    assert response.status_code < 500, (body, response.text)
    missing = "/v2/deployments/6f1c2c1e-0000-4000-8000-0000000000ff"
    response = send_json(cp_client, "PATCH", missing, body)
    assert response.status_code < 500, (body, response.text)


def test_a_source_that_is_an_object_or_list_is_a_422(cp_client: TestClient) -> None:
    """`source: {}` / `[]` (unhashable) is a readable 422 on `source`, not a 500."""
    sources: tuple[object, ...] = ({}, [], {"a": 1})
    for source in sources:
        response = cp_client.post("/v2/deployments", json={**VALID_CREATE, "source": source})
        assert response.status_code == 422, response.text
        locs = [item["loc"] for item in response.json()["detail"]]
        assert ["body", "source"] in locs
