"""`DirectSender`: the client's own requests built as httpx2 builds them, byte for byte."""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.api.auth import KeyAuth
from planner.api.client import ControlPlaneClient
from planner.api.direct import DirectSender
from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.api.transport import PoolTransport
from tests.api.test_transport import raw_server, read_request

pytestmark = pytest.mark.anyio

KEY = "key-1"
BODY = {
    "name": "café",
    "labels": {"quote": 'a "b" \u2028 c', "n": 1.5, "none": None, "flag": True},
    "list": [1, 2, {"x": []}],
}
CALLS: list[tuple[str, str, Any, Any]] = [
    ("GET", "/v2/deployments/d1", None, None),
    ("GET", "/v2/deployments", [("limit", 100), ("offset", 0), ("deployment_ids", "a,b")], None),
    ("GET", "/v2/deployments", [("name_contains", "a b&c/é"), ("remote_reconciled", "true")], None),
    ("GET", "/v2/deployments", [], None),
    ("GET", "/v2/deployments", [("deployment_ids", "6f1e-a_b.c~d,,e,"), ("x", "")], None),
    ("GET", "/v2/deployments", [("flag", True), ("none", None), ("n", 1.5)], None),
    ("POST", "/v2/deployments", None, BODY),
    ("POST", "/v2/deployments", None, None),
    ("PATCH", "/v2/deployments/d1", None, {"source_revision_config": {"repo_ref": "v2"}}),
    ("PATCH", "/v2/deployments/d1", None, None),
    ("DELETE", "/v2/deployments", [("deployment_ids", "d1"), ("deployment_ids", "d2")], None),
]


def wire(request: httpx2.Request) -> tuple[str, str, list[tuple[bytes, bytes]], bytes]:
    return request.method, str(request.url), request.headers.raw, request.read()


@pytest.mark.parametrize("base", ["http://127.0.0.1:8080", "https://cp.example/api-host"])
@pytest.mark.parametrize("tenant", [None, "t-1"])
@pytest.mark.parametrize(("method", "path", "params", "body"), CALLS)
def test_a_request_is_built_as_httpx2_builds_it(
    base: str, tenant: str | None, method: str, path: str, params: Any, body: Any
) -> None:
    """Method, URL, every header in order and the body: what `AsyncClient.request` plus
    `KeyAuth` send (the auth flow adds its headers last)."""
    auth = KeyAuth(KEY, tenant)
    http = httpx2.AsyncClient()
    expected = http.build_request(method, base + path, params=params, json=body)
    flow = auth.auth_flow(expected)
    expected = next(flow)
    sender = DirectSender.of(http, auth.headers())
    assert sender is not None
    built = sender.build(method, base + path, params, body)
    assert wire(built) == wire(expected)
    assert built.extensions == expected.extensions  # the client's timeouts
    assert wire(sender.build(method, base + path, params, body)) == wire(expected)  # cached URL


def test_headers_that_are_not_ascii_leave_it_to_httpx2() -> None:
    """An API key httpx2 would not encode as ASCII: no direct sender (the client's own
    path then fails as it always did)."""
    assert DirectSender.of(httpx2.AsyncClient(), [("X-Api-Key", "clé")]) is None


def test_few_urls_are_kept() -> None:
    """Parsed URLs are kept for reuse, but not without bound."""
    sender = DirectSender.of(httpx2.AsyncClient(), [])
    assert sender is not None
    for n in range(300):
        sender.build("GET", f"http://h/v2/deployments/d{n}", None, None)
        sender.build("GET", f"http://h/v2/deployments/d{n}", [("ids", "a,b")], None)
    assert 0 < len(sender._urls) <= 256
    assert 0 < len(sender._queried) <= 256


@functools.cache
def _shared_client() -> httpx2.AsyncClient:
    """One client for every example (building one reads the CA bundle: most of the time)."""
    return httpx2.AsyncClient()


_TEXT = st.text(alphabet=st.sampled_from("aZ09_.-~,% +&=?#/é\t\u2028"), max_size=12)
_VALUES = st.one_of(_TEXT, st.integers(-5, 5), st.booleans(), st.none())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_TEXT, _VALUES), max_size=4))
def test_any_query_is_built_as_httpx2_builds_it(params: list[tuple[str, Any]]) -> None:
    """Plain queries (the fast path) and all others: the URL httpx2 makes of them, or the
    error it raises."""
    assert_built_as_httpx2(_shared_client(), "http://127.0.0.1:8080/v2/deployments", params)


@pytest.mark.parametrize("length", [59_990, 65_000, 70_000])
def test_a_long_query_is_httpx2s_to_refuse(length: int) -> None:
    """Near httpx2's URL length limit the query goes through httpx2's own parser: the
    same URL, or the same refusal."""
    params: list[tuple[str, Any]] = [("ids", "a," * (length // 2))]
    assert_built_as_httpx2(_shared_client(), "http://h/v2/deployments", params)


def assert_built_as_httpx2(
    http: httpx2.AsyncClient, url: str, params: list[tuple[str, Any]]
) -> None:
    """A GET of URL with PARAMS, built by a DirectSender of HTTP: the request httpx2 builds
    (its bytes and its URL), or the refusal httpx2 raises."""
    sender = DirectSender.of(http, [])
    assert sender is not None
    try:
        expected = http.build_request("GET", url, params=params)
    except httpx2.InvalidURL:
        with pytest.raises(httpx2.InvalidURL):
            sender.build("GET", url, params, None)
        return
    built = sender.build("GET", url, params, None)
    assert wire(built) == wire(expected)
    assert built.url._uri_reference == expected.url._uri_reference


async def test_the_bytes_on_the_wire_are_httpx2s() -> None:
    """Over a real socket, every kind of call of the client sends what a plain httpx2
    client with the same auth sends."""
    seen: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            seen.append(await read_request(reader))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()

    async with raw_server(answer) as url:
        async with httpx2.AsyncClient() as http:
            for method, path, params, body in CALLS:
                await http.request(
                    method, url + path, params=params, json=body, auth=KeyAuth(KEY, "t-1")
                )
        expected, seen[:] = list(seen), []
        async with ControlPlaneClient(url, KEY, "t-1") as client:
            assert client._direct is not None
            for method, path, params, body in CALLS:
                await client._send(method, path, params=params, body=body)
    assert seen == expected


async def test_a_cookie_the_server_sets_is_sent_back() -> None:
    """Once the server set a cookie, the client's requests carry it, as httpx2's do."""
    seen: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            seen.append(await read_request(reader))
            cookie = b"set-cookie: lb=node-2; Path=/\r\n" if len(seen) == 1 else b""
            writer.write(b"HTTP/1.1 200 OK\r\n" + cookie + b"content-length: 2\r\n\r\n[]")
            await writer.drain()

    async with raw_server(answer) as url, ControlPlaneClient(url, KEY) as client:
        await client.list_providers()
        await client.list_providers()
    assert b"cookie:" not in seen[0].lower()
    assert b"\r\nCookie: lb=node-2\r\n" in seen[1]


async def test_create_and_patch_send_the_planned_json() -> None:
    """The bodies of a create and a PATCH: the models' JSON without nulls, as before."""
    seen: list[bytes] = []
    deployment = (
        b'{"id":"d1","tenant_id":"t","name":"caf\xc3\xa9","source":"git_host",'
        b'"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",'
        b'"status":"READY"}'
    )

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            seen.append(await read_request(reader))
            head = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(deployment)
            writer.write(head + deployment)
            await writer.drain()

    create = DeploymentCreate.model_validate(
        {
            "name": "café",
            "source": "git_host",
            "source_config": {"repo_url": "https://git.example.com/a"},
            "source_revision_config": {"repo_ref": "main"},
        }
    )
    patch = DeploymentPatch.model_validate({"source_revision_config": {"repo_ref": "v2"}})
    async with raw_server(answer) as url, ControlPlaneClient(url, KEY) as client:
        assert (await client.create_deployment(create)).name == "café"
        await client.patch_deployment("d1", patch)
    assert seen[0].endswith(
        '\r\n\r\n{"name":"café","source":"git_host","source_config":{"repo_url":'
        '"https://git.example.com/a"},"source_revision_config":{"repo_ref":"main"},'
        '"secrets":[]}'.encode()
    )
    assert seen[1].endswith(b'\r\n\r\n{"source_revision_config":{"repo_ref":"v2"}}')


async def test_a_body_cut_short_is_a_connection_error() -> None:
    """An answer whose body breaks off: the response is closed and the call fails as a
    connection failure (which the retries know), the pool left usable."""
    from planner.api.errors import ConnectionFailedError
    from planner.api.retry import NO_RETRIES

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n[]")
        await writer.drain()

    async with raw_server(answer) as url, ControlPlaneClient(url, KEY, retry=NO_RETRIES) as client:
        with pytest.raises(ConnectionFailedError):
            await client.list_providers()
        assert isinstance(client._transport, PoolTransport)
        pool = client._transport.pool
        assert all(not c.is_idle() or c.is_closed() for c in pool.connections)
