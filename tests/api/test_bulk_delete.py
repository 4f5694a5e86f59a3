"""Bulk delete on scripted transports: 200, a lying 207, 404s, chunking, chunk failures."""

from __future__ import annotations

import math
import uuid

import httpx2
import pytest

from planner.api.errors import AuthError
from tests.api.api_fakes import Scripted, deployment_json, page

pytestmark = pytest.mark.anyio


def ids(n: int) -> list[str]:
    return [str(uuid.UUID(int=i + 1)) for i in range(n)]


def deleted_params(request: httpx2.Request) -> list[str]:
    return request.url.params.get_list("deployment_ids")


def fake(live: dict[str, str], *, delete_status: int = 200, body: object = None) -> Scripted:
    """A fake plane holding `live` (id -> status); DELETE answers `delete_status` + `body`
    and changes nothing (the tests decide what the read-back shows)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            wanted = request.url.params["deployment_ids"].split(",")
            found = [deployment_json(i, status=live[i]) for i in wanted if i in live]
            return page(found, len(found))
        missing = [i for i in deleted_params(request) if i not in live]
        if missing:
            return httpx2.Response(404, json={"detail": f"Deployment ID {missing[0]} not found."})
        return httpx2.Response(delete_status, json=body)

    return Scripted(handler)


async def test_200_deletes_the_whole_chunk_with_repeated_params(make_client):
    """A 200 means every id is gone; ids go as repeated `deployment_ids` parameters."""
    wanted = ids(3)
    scripted = fake(dict.fromkeys(wanted, "READY"), body={"deleted": wanted, "failed": []})
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments(wanted)
    assert outcome.deleted == set(wanted)
    assert outcome.ok
    assert deleted_params(scripted.requests[0]) == wanted
    assert len(scripted.requests) == 1


async def test_207_body_is_not_trusted(make_client):
    """A 207 claiming all deleted is checked: the one still READY is reported present."""
    a, b, c = ids(3)
    live = {a: "READY", b: "AWAITING_DELETE"}  # c is gone already
    scripted = fake(live, delete_status=207, body={"deleted": [a, b, c], "failed": []})
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments([a, b, c])
    assert outcome.deleted == {b, c}
    assert outcome.still_present == {a}
    assert outcome.failed == {a: "still present after the delete request"}
    assert not outcome.ok


async def test_207_failure_detail_is_kept_for_a_present_id(make_client):
    """When the 207 body explains an id that is indeed still there, its detail is kept."""
    a, b = ids(2)
    body = {"deleted": [b], "failed": [{"deployment_id": a, "detail": "locked"}]}
    scripted = fake({a: "READY"}, delete_status=207, body=body)
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments([a, b])
    assert outcome.failed == {a: "locked"}
    assert outcome.deleted == {b}


async def test_404_counts_the_missing_id_as_deleted_and_retries_the_rest(make_client):
    """The id named by a 404 leaves the chunk; the rest is deleted by the next request."""
    a, b, c = ids(3)
    scripted = fake({a: "READY", c: "READY"})
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments([a, b, c])
    assert outcome.deleted == {a, b, c}
    assert [deleted_params(r) for r in scripted.requests] == [[a, b, c], [a, c]]


async def test_404_without_an_id_reads_back(make_client):
    """A 404 whose detail names no id is resolved by reading the chunk back."""
    a, b = ids(2)

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return page([deployment_json(a)], 1)
        if b in deleted_params(request):
            return httpx2.Response(404, json={"detail": "not found"})
        return httpx2.Response(200, json={})

    scripted = Scripted(handler)
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments([a, b])
    assert outcome.deleted == {a, b}
    assert [r.method for r in scripted.requests] == ["DELETE", "GET", "DELETE"]


async def test_more_than_100_ids_go_in_chunks(make_client):
    """250 ids take ceil(250/100) DELETE requests of at most 100 ids each."""
    wanted = ids(250)
    scripted = fake(dict.fromkeys(wanted, "READY"))
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments(wanted + wanted[:5])
    sizes = sorted(len(deleted_params(r)) for r in scripted.requests)
    assert len(scripted.requests) == math.ceil(250 / 100)
    assert sizes == [50, 100, 100]
    assert outcome.deleted == set(wanted)


async def test_failed_chunk_marks_its_ids_failed(make_client):
    """A chunk that keeps failing (5xx after retries) reports each of its ids as failed."""
    wanted = ids(2)
    scripted = Scripted(lambda r: httpx2.Response(500, json={"detail": "boom"}))
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments(wanted)
    assert set(outcome.failed) == set(wanted)
    assert "DELETE /v2/deployments failed: 500 boom" in outcome.failed[wanted[0]]
    assert outcome.deleted == set()


async def test_auth_failure_is_raised(make_client):
    """A 401 is raised rather than folded into the outcome."""
    scripted = Scripted(lambda r: httpx2.Response(401, json={"detail": "bad key"}))
    async with make_client(scripted) as client:
        with pytest.raises(AuthError):
            await client.delete_deployments(ids(1))


async def test_retried_delete_after_timeout_sees_deletion_in_progress(make_client):
    """A DELETE whose answer was lost and whose retry gets 207 counts AWAITING_DELETE as deleted."""
    (a,) = ids(1)
    live = {a: "READY"}

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.method == "GET":
            return page([deployment_json(a, status=live[a])], 1)
        if live[a] == "READY":
            live[a] = "AWAITING_DELETE"
            raise httpx2.ReadTimeout("lost")
        body = {"deleted": [], "failed": [{"deployment_id": a, "detail": "being deleted"}]}
        return httpx2.Response(207, json=body)

    async with make_client(Scripted(handler)) as client:
        outcome = await client.delete_deployments([a])
    assert outcome.deleted == {a}
    assert outcome.ok


async def test_nothing_to_delete_sends_nothing(make_client):
    """An empty id list makes no request and reports nothing."""
    scripted = fake({})
    async with make_client(scripted) as client:
        outcome = await client.delete_deployments([])
        found = await client.get_deployments_by_ids([])
    assert scripted.requests == []
    assert outcome.ok and outcome.deleted == set() and found == {}
