"""Plain creates and list pages answered before FastAPI: the same bytes as FastAPI's
answer, and every refusal still FastAPI's."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.controlplane.hot_routes import _canonical, _query
from tests.controlplane.core_fixtures import HEADERS, Plane, control_plane, git_host_body

pytestmark = pytest.mark.anyio

# A content type FastAPI reads as JSON that the hot route leaves to FastAPI.
SLOW_JSON = {"content-type": "application/json; charset=utf-8"}


def answer(response: httpx2.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return response.status_code, list(response.headers.multi_items()), response.content


async def post(cp: Plane, body: dict[str, Any], headers: dict[str, str]) -> httpx2.Response:
    return await cp.client.post("/v2/deployments", content=json.dumps(body), headers=headers)


async def test_a_hot_create_is_the_routes_answer(tmp_path: Path) -> None:
    """A create answered by the hot route and one answered by FastAPI differ only in ids."""
    async with control_plane(tmp_path) as cp:
        hot = await post(cp, git_host_body("hot-a"), {"content-type": "application/json"})
        slow = await post(cp, git_host_body("slw-a"), SLOW_JSON)  # as long
        assert hot.status_code == slow.status_code == 201

        def masked(response: httpx2.Response) -> tuple[int, list[tuple[str, str]], Any]:
            found = response.json()
            for key in ("id", "latest_revision_id", "name"):
                found[key] = key
            return response.status_code, list(response.headers.multi_items()), found

        assert masked(hot) == masked(slow)
        assert hot.content == (await cp.client.get(f"/v2/deployments/{hot.json()['id']}")).content


async def test_a_hot_page_is_the_routes_answer(tmp_path: Path) -> None:
    """Pages (with or without deployment_ids) are FastAPI's bytes and headers."""
    async with control_plane(tmp_path) as cp:
        ids = [(await cp.create(git_host_body(f"agent-{n}")))["id"] for n in range(5)]
        cp.clock.advance(0.3)  # some statuses moved on
        queries: list[dict[str, str]] = [
            {},
            {"limit": "2", "offset": "1"},
            {"limit": "100", "deployment_ids": f"{ids[3]}, ,{ids[0]}"},
        ]
        for params in queries:
            hot = await cp.client.get("/v2/deployments", params=params)
            # remote_reconciled=false filters nothing and is left to FastAPI
            slow = await cp.client.get(
                "/v2/deployments", params={**params, "remote_reconciled": "false"}
            )
            assert hot.status_code == 200
            assert answer(hot) == answer(slow)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"X-Api-Key": "wrong"}, 401),
        ({"X-Api-Key": "", "Authorization": f"Bearer {HEADERS['X-Api-Key']}"}, 201),
        ({**HEADERS, "X-Tenant-Id": "not-a-uuid"}, 403),
        ({**HEADERS, "X-Tenant-Id": str(uuid.uuid4())}, 403),
    ],
)
async def test_auth_the_hot_route_leaves_to_fastapi(
    tmp_path: Path, headers: dict[str, str], status: int
) -> None:
    """Without a known X-Api-Key the request gets FastAPI's answer (here a bearer key)."""
    async with control_plane(tmp_path) as cp:
        bare = httpx2.AsyncClient(transport=cp.client._transport, base_url="http://cp.test")
        async with bare:
            body = json.dumps(git_host_body("a"))
            created = await bare.post(
                "/v2/deployments",
                content=body,
                headers={**headers, "content-type": "application/json"},
            )
            assert created.status_code == status, created.text
            listed = await bare.get("/v2/deployments", headers=headers)
            assert listed.status_code == (200 if status == 201 else status)


async def test_refused_creates_are_fastapis_answers(tmp_path: Path) -> None:
    """Bad JSON, a body the model or rules refuse, a name taken: FastAPI answers each."""
    async with control_plane(tmp_path) as cp:
        plain = {"content-type": "application/json"}
        assert (await post(cp, git_host_body("taken"), plain)).status_code == 201
        taken = await post(cp, git_host_body("taken"), plain)
        assert taken.status_code == 409 and "already exists" in taken.json()["detail"]
        bad_json = await cp.client.post("/v2/deployments", content=b"{", headers=plain)
        assert bad_json.status_code == 400
        no_name = await post(cp, {k: v for k, v in git_host_body().items() if k != "name"}, plain)
        assert no_name.status_code == 422 and no_name.json()["detail"][0]["loc"] == [
            "body",
            "name",
        ]
        bad_name = await post(cp, git_host_body("Not A Label"), plain)
        assert bad_name.status_code == 422
        assert [p["loc"] for p in bad_name.json()["detail"]] == [["body", "name"]]
        listed = await cp.client.get("/v2/deployments")
        assert [d["name"] for d in listed.json()["resources"]] == ["taken"]


@pytest.mark.parametrize(
    "query",
    [
        {"limit": "0"},
        {"limit": "101"},
        {"limit": "abc"},
        {"offset": "-1"},
        {"deployment_ids": "{" + str(uuid.uuid4()) + "}"},
        {"deployment_ids": "nope"},
    ],
)
async def test_refused_pages_are_fastapis_answers(tmp_path: Path, query: dict[str, str]) -> None:
    """Out of bounds, not a number, not a uuid list: FastAPI's 422 on the query."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.get("/v2/deployments", params=query)
        assert response.status_code == 422, response.text
        assert response.json()["detail"][0]["loc"][0] == "query"


def scope(query: bytes) -> dict[str, Any]:
    return {"query_string": query}


def test_only_canonical_queries_of_three_parameters_are_hot() -> None:
    """limit/offset in canonical form within bounds, each once, nothing else named."""
    assert _query(scope(b"")) == (20, 0, None)
    assert _query(scope(b"limit=100&offset=9900")) == (100, 9900, None)
    assert _query(scope(b"deployment_ids=a%2Cb&limit=5")) == (5, 0, "a,b")
    for refused in (
        b"limit=5&limit=6",
        b"limit=05",
        b"limit=+5",
        b"limit=",
        b"offset=9223372036854775808",
        b"status=READY",
        b"name_contains=x",
    ):
        assert _query(scope(refused)) is None, refused
    assert _canonical("0") == 0 and _canonical("\u0661") is None
