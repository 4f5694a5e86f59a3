"""Unit tests of the client's request shapes, paging, chunking and errors (MockTransport)."""

from __future__ import annotations

import logging
import math
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.errors import (
    AuthError,
    BadRequestError,
    ConflictError,
    ConnectionFailedError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ValidationFailedError,
)
from planner.api.models import DeploymentPatch, ResourceSpec, SourceConfig, SourceRevisionConfig
from planner.errors import ApiError, ConfigError
from tests.api.api_fakes import SECRET_KEY, TENANT, Scripted, deployment_json, page

pytestmark = pytest.mark.anyio


def ids(n: int) -> list[str]:
    return [str(uuid.UUID(int=i + 1)) for i in range(n)]


def query(request: httpx2.Request) -> dict[str, list[str]]:
    return parse_qs(urlsplit(str(request.url)).query)


async def test_requests_carry_prefix_and_auth_headers(make_client):
    """A base URL with a path prefix is kept, and the key and workspace headers are sent."""
    scripted = Scripted(lambda r: httpx2.Response(200, json=deployment_json("d1")))
    async with make_client(scripted, base_url="https://host.example/api-host/") as client:
        await client.get_deployment("d1")
    request = scripted.requests[0]
    assert request.url.path == "/api-host/v2/deployments/d1"
    assert request.headers["X-Api-Key"] == SECRET_KEY
    assert request.headers["X-Tenant-Id"] == TENANT


async def test_every_list_filter_is_sent(make_client):
    """Every filter reaches the query; lists are joined with commas, booleans are true/false."""
    scripted = Scripted(lambda r: page([], 0))
    async with make_client(scripted) as client:
        await client.list_deployments(
            limit=50,
            offset=10,
            name_contains="api",
            status="READY",
            remote_reconciled=True,
            tag_value_ids=["t1", "t2"],
            image_version="1.2",
            deployment_type="prod",
            deployment_ids=["a", "b", "c"],
        )
    assert query(scripted.requests[0]) == {
        "limit": ["50"],
        "offset": ["10"],
        "name_contains": ["api"],
        "status": ["READY"],
        "remote_reconciled": ["true"],
        "tag_value_ids": ["t1,t2"],
        "image_version": ["1.2"],
        "deployment_type": ["prod"],
        "deployment_ids": ["a,b,c"],
    }


async def test_iteration_follows_returned_offset_and_stops_on_short_page(make_client):
    """Paging passes the returned offset on and ends at the first short page."""
    all_ids = ids(5)

    def handler(request: httpx2.Request) -> httpx2.Response:
        offset = int(query(request)["offset"][0])
        chunk = [deployment_json(i) for i in all_ids[offset : offset + 2]]
        return page(chunk, offset + len(chunk))

    scripted = Scripted(handler)
    async with make_client(scripted) as client:
        seen = [d.id async for d in client.iter_deployments(page_size=2)]
    assert seen == all_ids
    assert [query(r)["offset"] for r in scripted.requests] == [["0"], ["2"], ["4"]]


async def test_iteration_stops_on_empty_page(make_client):
    """A full page followed by an empty one ends the iteration."""
    pages = [page([deployment_json(i) for i in ids(2)], 2), page([], 2)]
    scripted = Scripted(lambda r: pages[len(scripted.requests) - 1])
    async with make_client(scripted) as client:
        seen = [d.id async for d in client.iter_deployments(page_size=2)]
    assert len(seen) == 2
    assert len(scripted.requests) == 2


async def test_fetching_many_ids_chunks_by_100(make_client):
    """250 ids take ceil(250/100) list requests, each filtered by at most 100 ids."""
    wanted = ids(250)

    def handler(request: httpx2.Request) -> httpx2.Response:
        chunk = query(request)["deployment_ids"][0].split(",")
        offset = int(query(request)["offset"][0])
        present = [deployment_json(i) for i in chunk if i != wanted[7]][offset:]
        return page(present, offset + len(present))

    scripted = Scripted(handler)
    async with make_client(scripted) as client:
        found = await client.get_deployments_by_ids(wanted + wanted[:3])
    assert len(scripted.requests) == math.ceil(250 / 100)
    assert all(len(query(r)["deployment_ids"][0].split(",")) <= 100 for r in scripted.requests)
    assert set(found) == set(wanted) - {wanted[7]}


async def test_progress_by_ids_sends_the_same_requests_and_reads_less(make_client):
    """`progress_by_ids` lists exactly as `get_deployments_by_ids` does (the same URLs,
    chunks and pages) and reads each deployment's id, status and revision ids."""
    wanted = ids(150)

    def handler(request: httpx2.Request) -> httpx2.Response:
        chunk = query(request)["deployment_ids"][0].split(",")
        offset = int(query(request)["offset"][0])
        present = [deployment_json(i) for i in chunk if i != wanted[7]][offset:]
        return page(present, offset + len(present))

    whole, lean = Scripted(handler), Scripted(handler)
    async with make_client(whole) as client:
        deployments = await client.get_deployments_by_ids(wanted)
    async with make_client(lean) as client:
        progress = await client.progress_by_ids(wanted)
    assert [str(r.url) for r in lean.requests] == [str(r.url) for r in whole.requests]
    assert list(progress) == list(deployments) and wanted[7] not in progress
    for deployment_id, found in progress.items():
        full = deployments[deployment_id]
        assert (found.id, found.status) == (full.id, full.status)
        assert (found.latest_revision_id, found.active_revision_id) == (
            full.latest_revision_id,
            full.active_revision_id,
        )


async def test_find_by_name_wants_an_exact_match(make_client):
    """`name_contains` also returns longer names; only the exact name is returned."""
    scripted = Scripted(
        lambda r: page([deployment_json("d1", "api-v2"), deployment_json("d2", "api")], 2)
    )
    async with make_client(scripted) as client:
        found = await client.find_by_name("api")
        missing = await client.find_by_name("ap")
    assert found is not None and found.id == "d2"
    assert missing is None
    assert query(scripted.requests[0])["name_contains"] == ["api"]


async def test_patch_body_has_no_nulls(make_client):
    """A PATCH sends only the fields that are set, nested ones included."""
    scripted = Scripted(lambda r: httpx2.Response(200, json=deployment_json("d1")))
    patch = DeploymentPatch(
        source_config=SourceConfig(resource_spec=ResourceSpec(max_scale=3)),
        source_revision_config=SourceRevisionConfig(repo_ref="main"),
        secret_references=[],
    )
    async with make_client(scripted) as client:
        await client.patch_deployment("d1", patch)
    assert scripted.bodies()[0] == {
        "source_config": {"resource_spec": {"max_scale": 3}},
        "source_revision_config": {"repo_ref": "main"},
        "secret_references": [],
    }


async def test_catalog_endpoints_hit_documented_paths(make_client):
    """Providers, integrations and repositories use the documented paths and bare arrays."""
    scripted = Scripted(lambda r: httpx2.Response(200, json=[]))
    async with make_client(scripted) as client:
        assert await client.list_providers() == []
        assert await client.list_integrations() == []
        assert await client.list_repositories("i-1") == []
    assert [r.url.path for r in scripted.requests] == [
        "/v2/auth/providers",
        "/v1/integrations/git_host/install",
        "/v1/integrations/git_host/i-1/repos",
    ]


async def test_422_renders_every_problem_as_a_line(make_client):
    """A 422 lists each `loc` (without `body`) and message as a readable detail line."""
    detail = [
        {"loc": ["body", "source_config", "repo_url"], "msg": "Field required", "type": "m"},
        {"loc": ["body", "secrets", 0, "name"], "msg": "bad name", "type": "v"},
    ]
    scripted = Scripted(lambda r: httpx2.Response(422, json={"detail": detail}))
    async with make_client(scripted) as client:
        with pytest.raises(ValidationFailedError) as caught:
            await client.patch_deployment("d1", DeploymentPatch())
    error = caught.value
    assert error.status == 422
    assert str(error) == "PATCH /v2/deployments/d1 failed: 422 validation failed"
    assert error.problems == [
        ("source_config.repo_url", "Field required"),
        ("secrets.0.name", "bad name"),
    ]
    assert error.details == ["source_config.repo_url: Field required", "secrets.0.name: bad name"]


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (400, BadRequestError),
        (401, AuthError),
        (403, AuthError),
        (404, NotFoundError),
        (409, ConflictError),
        (418, ApiError),
        (500, ServerError),
    ],
)
async def test_status_maps_to_error_class_with_method_and_path(make_client, status, error_class):
    """Each status gives its error class; the message names method, path, status, detail."""
    detail = "source_config.repo_url cannot be changed"
    scripted = Scripted(lambda r: httpx2.Response(status, json={"detail": detail}))
    async with make_client(scripted) as client:
        with pytest.raises(error_class) as caught:
            await client.patch_deployment("d1", DeploymentPatch())
    assert str(caught.value) == f"PATCH /v2/deployments/d1 failed: {status} {detail}"
    assert caught.value.status == status
    assert caught.value.detail == detail


async def test_workspace_403_hints_at_tenant(make_client):
    """A 403 about the workspace tells the user how to choose one."""
    detail = "API key requires workspace specification"
    scripted = Scripted(lambda r: httpx2.Response(403, json={"detail": detail}))
    async with make_client(scripted) as client:
        with pytest.raises(AuthError) as caught:
            await client.list_providers()
    assert caught.value.hint is not None and "PLANNER_TENANT_ID" in caught.value.hint


async def test_forbidden_hints_at_the_key_not_the_tenant(make_client):
    """A bare 403 `Forbidden` (a wrong key on the service) says to check PLANNER_API_KEY."""
    scripted = Scripted(lambda r: httpx2.Response(403, json={"detail": "Forbidden"}))
    async with make_client(scripted) as client:
        with pytest.raises(AuthError) as caught:
            await client.list_providers()
    assert caught.value.hint is not None and "PLANNER_API_KEY" in caught.value.hint
    assert "PLANNER_TENANT_ID" not in caught.value.hint


async def test_a_key_echoed_by_the_server_is_not_printed(make_client):
    """An error body that repeats the key has it replaced by `(sensitive)`."""
    body = {"detail": f"Invalid API key {SECRET_KEY} for workspace"}
    scripted = Scripted(lambda r: httpx2.Response(403, json=body))
    async with make_client(scripted) as client:
        with pytest.raises(AuthError) as caught:
            await client.list_providers()
    assert SECRET_KEY not in str(caught.value) and SECRET_KEY not in str(caught.value.detail)
    assert "Invalid API key (sensitive) for workspace" in str(caught.value)
    assert "PLANNER_TENANT_ID" not in (caught.value.hint or "")


async def test_non_json_error_body_is_kept_as_text(make_client):
    """A plain-text error body becomes the detail."""
    scripted = Scripted(lambda r: httpx2.Response(400, text="bad gateway config"))
    async with make_client(scripted) as client:
        with pytest.raises(BadRequestError, match="400 bad gateway config"):
            await client.list_providers()


async def test_malformed_success_body_is_an_api_error(make_client):
    """A 200 whose body is not the documented shape raises an ApiError naming the path."""
    scripted = Scripted(lambda r: httpx2.Response(200, json={"unexpected": True}))
    async with make_client(scripted) as client:
        with pytest.raises(ApiError, match="GET /v2/deployments/d1 returned an unexpected"):
            await client.get_deployment("d1")


def test_missing_key_is_a_config_error():
    """A client without a key refuses to start."""
    with pytest.raises(ConfigError, match="no API key"):
        ControlPlaneClient("https://cp.example.com", "")


async def test_key_never_appears_in_repr_errors_or_logs(make_client, caplog):
    """The key is absent from the repr, from every error's text, and from DEBUG logs."""
    caplog.set_level(logging.DEBUG)
    responses = [
        httpx2.Response(status, json={"detail": "nope"}) for status in (400, 401, 404, 409, 500)
    ] + [httpx2.Response(429, headers={"Retry-After": "1"}, json={"detail": "slow"})]
    errors: list[ApiError] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        if len(errors) == len(responses):
            raise httpx2.ConnectError("refused", request=request)
        return responses[len(errors)]

    async with make_client(handler, max_attempts=1) as client:
        for _ in range(len(responses) + 1):
            with pytest.raises(ApiError) as caught:
                await client.get_deployment("d1")
            errors.append(caught.value)
        texts = [repr(client), caplog.text]
    assert {type(e) for e in errors} >= {AuthError, RateLimitedError, ConnectionFailedError}
    for error in errors:
        texts += [str(error), repr(error), *error.details, error.hint or ""]
    assert "GET /v2/deployments/d1 -> 500" in caplog.text
    assert all(SECRET_KEY not in text for text in texts)


async def test_a_given_http_client_is_shared_and_left_open():
    """A ready AsyncClient is used as is (its pool shared) and not closed by the client."""
    scripted = Scripted(lambda r: httpx2.Response(200, json=[]))
    closed: list[bool] = []
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(scripted)) as http:
        client = ControlPlaneClient(
            "https://cp.example/api-host",
            SECRET_KEY,
            None,
            http_client=http,
            on_close=lambda: closed.append(True),
        )
        async with client:
            await client.list_providers()
        assert not http.is_closed
        await client.aclose()
    assert closed == [True]
    assert scripted.requests[0].url.path == "/api-host/v2/auth/providers"
    assert "X-Tenant-Id" not in scripted.requests[0].headers


def nested_labels(depth: int) -> object:
    labels: object = "x"
    for _ in range(depth):
        labels = {"a": labels}
    return labels


async def test_labels_nested_deeper_than_pydantic_parses_are_still_read(make_client):
    """A listed deployment whose labels nest 250 deep (past pydantic's JSON parser) is
    read all the same, with every level of its labels."""
    deep = deployment_json("d1", "deep")
    deep["source_config"] = {"resource_spec": {"labels": nested_labels(250)}}
    scripted = Scripted(lambda r: page([deep, deployment_json("d2", "plain")], 2))
    async with make_client(scripted) as client:
        listed = [d async for d in client.iter_deployments()]
    assert [d.name for d in listed] == ["deep", "plain"]
    assert listed[0].source_config is not None and listed[0].source_config.resource_spec
    assert listed[0].source_config.resource_spec.labels == nested_labels(250)


@pytest.mark.parametrize("status", [200, 400, 500])
async def test_a_body_nested_100k_deep_is_an_api_error_not_a_crash(make_client, status):
    """Whatever the server returns, even 100k nested brackets, the client raises an
    ApiError naming the request (never a RecursionError)."""
    body = b'{"resources": ' + b"[" * 100_000 + b"]" * 100_000 + b', "offset": 0}'
    scripted = Scripted(lambda r: httpx2.Response(status, content=body))
    async with make_client(scripted) as client:
        with pytest.raises(ApiError, match=r"GET /v2/deployments"):
            await client.list_deployments()


async def test_the_pool_is_fitted_up_to_the_requests_in_flight_not_down():
    """A client's own pool grows to the connections asked for (each kept alive) and is
    replaced by a fresh one; a smaller ask or a client on a given transport keeps its pool."""
    client = ControlPlaneClient("http://127.0.0.1:9", "key")
    async with client:
        assert client.pool_connections == 100
        first = client._http
        await client.fit_pool(160)
        assert client.pool_connections == 160 and first.is_closed
        assert not client._http.is_closed
        await client.fit_pool(20)
        assert client.pool_connections == 160
    given = ControlPlaneClient(
        "http://cp.test", "key", transport=httpx2.MockTransport(lambda r: httpx2.Response(200))
    )
    async with given:
        await given.fit_pool(500)
        assert given.pool_connections == 100
