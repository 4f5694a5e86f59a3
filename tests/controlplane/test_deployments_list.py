"""GET /v2/deployments: pagination, every filter, and query validation."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from planner.api.models import DeploymentList
from planner.controlplane.service import IMAGE_VERSION
from tests.controlplane.core_fixtures import Plane, control_plane, git_host_body

pytestmark = pytest.mark.anyio


async def page(cp: Plane, **params: Any) -> DeploymentList:
    response = await cp.client.get("/v2/deployments", params=params)
    assert response.status_code == 200, response.text
    return DeploymentList.model_validate(response.json())


async def names(cp: Plane, **params: Any) -> list[str]:
    """Names listed, sorted (equal timestamps order by id, which is random)."""
    return sorted(d.name for d in (await page(cp, limit=100, **params)).resources)


async def test_pagination_across_130_deployments(tmp_path: Path) -> None:
    """Pages of 100 and 20 walk 130 deployments in creation order; the last page is short."""
    async with control_plane(tmp_path) as cp:
        created = []
        for n in range(130):
            created.append((await cp.create(git_host_body(f"agent-{n:03d}")))["id"])
            cp.clock.advance(0.001)
        first = await page(cp, limit=100)
        assert len(first.resources) == 100 and first.offset == 100
        second = await page(cp, limit=100, offset=first.offset)
        assert len(second.resources) == 30 and second.offset == 130
        assert [d.id for d in first.resources + second.resources] == created
        seen: list[str] = []
        offset = 0
        while True:
            small = await page(cp, limit=20, offset=offset)
            seen += [d.id for d in small.resources]
            offset = small.offset
            if len(small.resources) < 20:
                break
        assert seen == created and offset == 130
        default = await page(cp)
        assert len(default.resources) == 20 and default.offset == 20
        beyond = await page(cp, offset=500)
        assert beyond.resources == [] and beyond.offset == 500


async def test_order_is_stable_for_equal_timestamps(tmp_path: Path) -> None:
    """Deployments created at the same instant list in one stable (created_at, id) order."""
    async with control_plane(tmp_path) as cp:
        ids = [(await cp.create(git_host_body(f"same-{n}")))["id"] for n in range(5)]
        listed = [d.id for d in (await page(cp)).resources]
        assert listed == sorted(ids)
        assert [d.id for d in (await page(cp)).resources] == listed


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 101},
        {"offset": -1},
        {"offset": 2**63},
        {"limit": "many"},
        {"deployment_type": "huge"},
        {"deployment_ids": "not-a-uuid"},
        {"tag_value_ids": "x"},
        {"remote_reconciled": "maybe"},
    ],
)
async def test_bad_query_is_422(tmp_path: Path, params: dict[str, Any]) -> None:
    """Out-of-range paging and malformed filters are 422 located under "query"."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.get("/v2/deployments", params=params)
        assert response.status_code == 422
        detail = response.json()["detail"]
        assert detail and all(e["loc"][0] == "query" for e in detail)
        assert {e["loc"][1] for e in detail} == set(params)


async def test_filters(tmp_path: Path) -> None:
    """name_contains, deployment_type, deployment_ids and image_version narrow the list."""
    async with control_plane(tmp_path) as cp:
        a = await cp.create(git_host_body("billing-api"))
        dev = git_host_body("billing-worker")
        dev["source_config"]["deployment_type"] = "dev"
        b = await cp.create(dev)
        await cp.create(git_host_body("search"))
        assert await names(cp, name_contains="billing") == ["billing-api", "billing-worker"]
        assert await names(cp, name_contains="BILLING-W") == ["billing-worker"]
        assert await names(cp, deployment_type="dev") == ["billing-worker"]
        assert await names(cp, deployment_type="prod") == ["billing-api", "search"]
        ids = f"{b['id']}, {a['id']},"
        assert await names(cp, deployment_ids=ids) == ["billing-api", "billing-worker"]
        assert await names(cp, deployment_ids=str(uuid.uuid4())) == []
        assert len(await names(cp, image_version=IMAGE_VERSION)) == 3
        assert await names(cp, image_version="9.9.9") == []
        assert await names(cp, name_contains="billing", deployment_type="prod") == ["billing-api"]


async def test_status_filter_follows_the_clock(tmp_path: Path) -> None:
    """status filters on the computed status: AWAITING_DATABASE, READY, AWAITING_DELETE."""
    async with control_plane(tmp_path, deploy_seconds=1.0, delete_seconds=5) as cp:
        old = await cp.create(git_host_body("old"))
        cp.clock.advance(1)
        await cp.create(git_host_body("new"))
        assert await names(cp, status="AWAITING_DATABASE") == ["new"]
        assert await names(cp, status="READY") == ["old"]
        await cp.client.delete("/v2/deployments", params={"deployment_ids": old["id"]})
        assert await names(cp, status="AWAITING_DELETE") == ["old"]
        assert await names(cp, status="UNUSED") == []


async def test_remote_reconciled_and_tags_match_no_local_deployment(tmp_path: Path) -> None:
    """Local deployments are never remote-reconciled and carry no tags."""
    async with control_plane(tmp_path) as cp:
        await cp.create(git_host_body())
        assert await names(cp, remote_reconciled="true") == []
        assert await names(cp, remote_reconciled="false") == ["support-agent"]
        assert await names(cp, tag_value_ids=str(uuid.uuid4())) == []
        assert await names(cp, tag_value_ids="") == ["support-agent"]


async def test_list_items_match_get(tmp_path: Path) -> None:
    """Items in the list carry the same fields as GET by id, secrets included."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        listed = (await cp.client.get("/v2/deployments")).json()["resources"]
        assert listed == [await cp.get(created["id"])]


FILTER_SHAPES: list[dict[str, Any]] = [
    {},
    {"name_contains": "PAGE-1"},
    {"name_contains": "page-12"},
    {"deployment_type": "dev"},
    {"name_contains": "page", "deployment_type": "prod"},
    {"status": "READY"},
]


@pytest.mark.parametrize("params", FILTER_SHAPES)
async def test_small_pages_of_each_filter_walk_exactly_the_filtered_list(
    tmp_path: Path, params: dict[str, Any]
) -> None:
    """Pages of 7 under a filter, joined, are that filter's list in (created_at, id) order."""
    async with control_plane(tmp_path) as cp:
        created = []
        for n in range(30):
            body = git_host_body(f"page-{n}")
            body["source_config"]["deployment_type"] = "dev" if n % 3 == 0 else "prod"
            created.append(await cp.create(body))
            cp.clock.advance(0.01)
        cp.clock.advance(1.0)
        whole = (await page(cp, limit=100, **params)).resources
        walked, offset = [], 0
        while batch := (await page(cp, limit=7, offset=offset, **params)).resources:
            walked += batch
            offset += len(batch)
        assert [d.id for d in walked] == [d.id for d in whole]
        assert [d.id for d in whole] == [d["id"] for d in created if matches(d, params)]


def matches(deployment: dict[str, Any], params: dict[str, Any]) -> bool:
    """The filters' meaning, spelled out: a case-insensitive substring, exact values."""
    wanted = params.get("name_contains", "").lower()
    kind = params.get("deployment_type")
    return wanted in deployment["name"] and kind in (
        None,
        deployment["source_config"].get("deployment_type"),
    )


async def test_deployment_ids_page_in_creation_order_with_other_filters(tmp_path: Path) -> None:
    """The ids filter lists the ids found in creation order, pages with offset, and
    combines with a name filter."""
    async with control_plane(tmp_path) as cp:
        ids = []
        for n in range(12):
            ids.append((await cp.create(git_host_body(f"by-id-{n}")))["id"])
            cp.clock.advance(0.01)
        asked = ",".join([*reversed(ids[::2]), str(uuid.uuid4())])
        first = await page(cp, limit=4, deployment_ids=asked)
        rest = await page(cp, limit=4, offset=first.offset, deployment_ids=asked)
        assert [d.id for d in first.resources + rest.resources] == ids[::2]
        named = await page(cp, deployment_ids=asked, name_contains="BY-ID-1")
        assert [d.name for d in named.resources] == ["by-id-10"]
