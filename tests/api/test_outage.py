"""Outages: creates, PATCHes and deletes ride one out for the retry time budget, however
many attempts that takes, and a create looks its name up before it is sent again."""

from __future__ import annotations

import httpx2
import pytest

from planner.api.client import FIRST_CONTACT_ATTEMPTS
from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.errors import ApiError
from tests.api.api_fakes import FakeTime, Scripted, deployment_json, page

pytestmark = pytest.mark.anyio

CREATE = DeploymentCreate(name="api", source="git_host")
DOWN = (httpx2.ConnectError("refused"), httpx2.RemoteProtocolError("reset"), 502, 503, 504)


def outage(fake_time: FakeTime, seconds: float, answer: Scripted | None = None) -> Scripted:
    """A server that is down (refused, reset, 502/503/504 in turn) for SECONDS of the
    fake clock, then answers as ANSWER does (200 with a deployment when None)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        if fake_time.now < seconds:
            failure = DOWN[len(scripted.requests) % len(DOWN)]
            if isinstance(failure, Exception):
                raise failure
            return httpx2.Response(failure, json={"detail": "down"})
        if answer is not None:
            answer.requests.append(request)
            return answer.handler(request)
        return httpx2.Response(200, json=deployment_json("d1", "api"))

    scripted = Scripted(handler)
    return scripted


async def test_a_patch_rides_out_a_40_second_outage(make_client, fake_time: FakeTime):
    """A PATCH sent into a 40 s outage is retried (many more than 5 times) until the
    server answers, within the 60 s budget."""
    scripted = outage(fake_time, 40.0)
    async with make_client(scripted) as client:
        deployment = await client.patch_deployment("d1", DeploymentPatch(secret_references=[]))
    assert deployment.id == "d1"
    assert len(scripted.requests) > 5 and fake_time.now >= 40.0


async def test_a_bulk_delete_rides_out_an_outage(make_client, fake_time: FakeTime):
    """A bulk DELETE sent into a 20 s outage is retried until the server answers."""
    gone = Scripted(lambda r: httpx2.Response(200, json={"deleted": ["d1"]}))
    scripted = outage(fake_time, 20.0, gone)
    async with make_client(scripted) as client:
        await client.send_bulk_delete(["d1"])
    assert [r.method for r in gone.requests] == ["DELETE"]


async def test_an_outage_longer_than_the_budget_gives_up_naming_the_time(
    make_client, fake_time: FakeTime
):
    """A request still failing when the time budget is spent gives up, saying after how
    many attempts and seconds; a shorter budget (as tests set) ends sooner."""
    scripted = outage(fake_time, 1000.0)
    async with make_client(scripted, max_total_seconds=5.0) as client:
        with pytest.raises(ApiError) as caught:
            await client.get_deployment("d1")
    assert fake_time.now <= 5.0 and len(scripted.requests) > 2
    assert any("gave up after" in line for line in caught.value.details)


def created_once(fake_time: FakeTime, down_until: float, first_post_creates: bool) -> Scripted:
    """A server whose first POST is cut off (having created `first`, or not), then is
    down until DOWN_UNTIL on the fake clock, look-ups included."""
    made: list[dict[str, object]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        posts = [r for r in scripted.requests if r.method == "POST"]
        if request.method == "POST" and len(posts) == 1:
            if first_post_creates:
                made.append(deployment_json("first", "api"))
            raise httpx2.RemoteProtocolError("connection reset")
        if fake_time.now < down_until:
            raise httpx2.ConnectError("connection refused")
        if request.method == "GET":
            return page(list(made), len(made))
        made.append(deployment_json("second", "api"))
        return httpx2.Response(201, json=made[-1])

    scripted = Scripted(handler)
    return scripted


@pytest.mark.parametrize("first_post_creates", [True, False])
async def test_a_create_looks_its_name_up_through_the_outage_before_sending_again(
    make_client, fake_time: FakeTime, first_post_creates: bool
):
    """A create cut off by an outage is never sent again before a look-up by name has
    answered: a look-up that meets the outage is retried; what the first POST made is
    adopted, else the create is sent once more: one deployment either way."""
    scripted = created_once(fake_time, 15.0, first_post_creates)
    async with make_client(scripted) as client:
        deployment = await client.create_deployment(CREATE)
    methods = [r.method for r in scripted.requests]
    assert methods.count("GET") > 2 and methods[-2] == "GET"
    assert deployment.id == ("first" if first_post_creates else "second")
    assert methods.count("POST") == (1 if first_post_creates else 2)


async def test_a_read_before_the_server_ever_answered_gives_up_after_a_few_attempts(
    make_client, fake_time: FakeTime
):
    """A wrong URL or a server that is not up: the first read fails after a few attempts
    (seconds), not after the whole budget; once the server answered, a read rides out an
    outage like a write."""
    refused = Scripted(lambda r: (_ for _ in ()).throw(httpx2.ConnectError("refused")))
    async with make_client(refused) as client:
        with pytest.raises(ApiError):
            await client.get_deployment("d1")
    assert len(refused.requests) == FIRST_CONTACT_ATTEMPTS and fake_time.now < 10.0
    answered = [False]

    def up_then_down(request: httpx2.Request) -> httpx2.Response:
        if not answered[0] or fake_time.now >= 30.0:
            answered[0] = True
            return httpx2.Response(200, json=deployment_json("d1", "api"))
        raise httpx2.ConnectError("refused")

    flaky = Scripted(up_then_down)
    async with make_client(flaky) as client:
        await client.get_deployment("d1")
        deployment = await client.get_deployment("d1")
    assert deployment.id == "d1" and len(flaky.requests) > FIRST_CONTACT_ATTEMPTS + 1
