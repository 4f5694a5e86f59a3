"""Body size and JSON nesting bounds, checked before a body is parsed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from planner.api.values import MAX_JSON_DEPTH
from planner.controlplane.body_limits import (
    MAX_BODY_BYTES,
    BodyLimitMiddleware,
    too_deep_at,
)
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from tests.loopback import served

CREATE = {
    "name": "deep",
    "source": "internal_docker",
    "source_revision_config": {"image_uri": "registry/agent:1"},
}
JSON = {"Content-Type": "application/json"}
KEY = {"X-Api-Key": EMBEDDED_API_KEY}


def nested(levels: int) -> Any:
    """Objects `{"a": {"a": ...}}` `levels` deep (0: a plain string)."""
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value


def with_labels(labels: Any) -> dict[str, Any]:
    return {**CREATE, "source_config": {"resource_spec": {"labels": labels}}}


def test_labels_at_the_depth_limit_are_accepted(cp_client: TestClient) -> None:
    """A body exactly MAX_JSON_DEPTH levels deep (the body itself is level 1) is stored."""
    labels = nested(MAX_JSON_DEPTH - 3)  # body > source_config > resource_spec > labels
    response = cp_client.post("/v2/deployments", json=with_labels(labels))
    assert response.status_code == 201, response.text
    assert cp_client.get("/v2/deployments").status_code == 200


def test_labels_one_level_too_deep_are_a_422_naming_the_field(cp_client: TestClient) -> None:
    """One level past the limit is a 422 whose loc leads to the object that is too deep."""
    response = cp_client.post("/v2/deployments", json=with_labels(nested(MAX_JSON_DEPTH - 2)))
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"][:5] == ["body", "source_config", "resource_spec", "labels", "a"]
    assert len(problem["loc"]) == MAX_JSON_DEPTH + 1  # "body", then one part per level
    assert f"{MAX_JSON_DEPTH} levels" in problem["msg"]
    assert cp_client.get("/v2/deployments").json()["resources"] == []


def test_patch_bodies_are_bounded_too(cp_client: TestClient) -> None:
    """A PATCH with labels 250 deep is a 422, and the deployment stays listable."""
    created = cp_client.post("/v2/deployments", json=CREATE).json()
    body = {"source_config": {"resource_spec": {"labels": nested(250)}}}
    response = cp_client.patch(f"/v2/deployments/{created['id']}", json=body)
    assert response.status_code == 422
    assert cp_client.get("/v2/deployments").status_code == 200


@pytest.mark.parametrize(
    "raw",
    [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 100_000 + b"1" + b"}" * 100_000],
)
def test_hugely_nested_json_is_a_4xx(cp_client: TestClient, raw: bytes) -> None:
    """100k nested brackets (closed or not) get a 4xx, never a 500 or a RecursionError."""
    response = cp_client.post("/v2/deployments", content=raw, headers=JSON)
    assert 400 <= response.status_code < 500


def test_body_over_the_size_limit_is_a_413(cp_client: TestClient) -> None:
    """A body declared larger than MAX_BODY_BYTES is refused with 413 and a detail."""
    body = with_labels({"big": "x" * MAX_BODY_BYTES})
    response = cp_client.post("/v2/deployments", json=body)
    assert response.status_code == 413
    assert "16 MiB" in response.json()["detail"]


def test_chunked_body_over_the_size_limit_is_a_413(cp_client: TestClient) -> None:
    """A body streamed without Content-Length is counted as it arrives."""

    def chunks() -> Iterator[bytes]:
        yield b'{"name": "big", "labels": "'
        for _ in range(MAX_BODY_BYTES // 65_536 + 4):
            yield b"x" * 65_536
        yield b'"}'

    response = cp_client.post("/v2/deployments", content=chunks(), headers=JSON)
    assert response.status_code == 413


async def _stream(chunks: list[bytes], sent: list[int]) -> AsyncIterator[Message]:
    for index, chunk in enumerate(chunks):
        sent.append(index)
        yield {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}


@pytest.mark.anyio
async def test_streamed_body_stops_being_read_past_the_limit() -> None:
    """Reading stops at the first chunk past the limit: the rest is never buffered."""
    sent: list[int] = []
    stream = _stream([b"x" * 600, b"x" * 600, b"x" * 600], sent)
    reached: list[Scope] = []
    statuses: list[int] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        reached.append(scope)

    async def receive() -> Message:
        return await anext(stream)

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    middleware = BodyLimitMiddleware(app, max_bytes=1000)
    scope = {"type": "http", "method": "POST", "path": "/v2/deployments", "headers": []}
    await middleware(scope, receive, send)
    assert statuses == [413] and not reached and sent == [0, 1]


def test_too_deep_at_names_the_path_and_ignores_brackets_in_strings() -> None:
    """Only structure counts (not brackets inside strings); the path names object keys and
    array indices; a body too deep to parse at all is too deep at its root."""
    raw = json.dumps({"x": '[[[[\\"[[[', "a": [0, {"b": [[1]]}]}).encode()
    assert too_deep_at(raw, 5) is None
    assert too_deep_at(raw, 4) == ("a", 1, "b", 0)
    assert too_deep_at(raw, 3) == ("a", 1, "b")
    assert too_deep_at(b"[" * 10 + b"]" * 10, 3) == (0, 0, 0)
    assert too_deep_at(b"[" * 100_000, 3) == ()
    assert too_deep_at(b"[[[[ not json", 3) is None


def test_limits_hold_over_real_http(tmp_path: Path) -> None:
    """Under uvicorn: an oversized body (declared or chunked) is a 413 and the server keeps
    serving; 100k brackets are a 4xx."""
    settings = ServerSettings(db_path=tmp_path / "cp.db")

    def chunks() -> Iterator[bytes]:
        for _ in range(MAX_BODY_BYTES // 65_536 + 4):
            yield b"[" * 65_536

    with served(settings) as url, httpx2.Client(base_url=url, headers=KEY, timeout=30) as client:
        declared = client.post("/v2/deployments", content=b" " * (MAX_BODY_BYTES + 1), headers=JSON)
        streamed = client.post("/v2/deployments", content=chunks(), headers=JSON)
        brackets = client.post("/v2/deployments", content=b"[" * 100_000, headers=JSON)
        assert (declared.status_code, streamed.status_code) == (413, 413)
        assert 400 <= brackets.status_code < 500
        assert client.get("/v2/deployments").status_code == 200
