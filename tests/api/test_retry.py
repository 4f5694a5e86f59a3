"""Every retry branch of the client, on scripted transports with a fake clock and sleep."""

from __future__ import annotations

import httpx2
import pytest

from planner.api.errors import (
    BadRequestError,
    ConflictError,
    ConnectionFailedError,
    RateLimitedError,
    ServerError,
)
from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.api.retry import RetryNotice, RetryPolicy
from tests.api.api_fakes import FakeTime, Scripted, deployment_json, page

pytestmark = pytest.mark.anyio

CREATE = DeploymentCreate(name="api", source="git_host")


def sequence(*steps: httpx2.Response | Exception) -> Scripted:
    """A handler answering with `steps` in order (an exception is raised, as a transport would)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        step = steps[len(scripted.requests) - 1]
        if isinstance(step, Exception):
            raise step
        return step

    scripted = Scripted(handler)
    return scripted


def ok() -> httpx2.Response:
    return httpx2.Response(200, json=deployment_json("d1", "api"))


async def test_connection_error_then_success(make_client, fake_time: FakeTime):
    """A refused connection is retried after one backoff sleep, then succeeds."""
    scripted = sequence(httpx2.ConnectError("refused"), ok())
    async with make_client(scripted) as client:
        deployment = await client.get_deployment("d1")
    assert deployment.id == "d1"
    assert len(scripted.requests) == 2
    assert fake_time.sleeps == [0.5 * 0.5]  # random 0.5 x base 0.5 for the first retry


async def test_429_honours_retry_after(make_client, fake_time: FakeTime):
    """A 429 waits exactly the server's Retry-After seconds before retrying."""
    limited = httpx2.Response(429, headers={"Retry-After": "7"}, json={"detail": "slow down"})
    scripted = sequence(limited, ok())
    async with make_client(scripted) as client:
        await client.get_deployment("d1")
    assert fake_time.sleeps == [7.0]


async def test_retry_after_is_capped(make_client, fake_time: FakeTime):
    """A huge Retry-After is capped by the policy."""
    limited = httpx2.Response(429, headers={"Retry-After": "3600"}, json={"detail": "later"})
    scripted = sequence(limited, ok())
    async with make_client(scripted, max_retry_after=12.0, max_total_seconds=100) as client:
        await client.get_deployment("d1")
    assert fake_time.sleeps == [12.0]


async def test_503_gives_up_after_max_attempts(make_client, fake_time: FakeTime):
    """Persistent 503s end in a ServerError after exactly max_attempts requests."""
    scripted = Scripted(lambda r: httpx2.Response(503, json={"detail": "unavailable"}))
    async with make_client(scripted, max_attempts=4) as client:
        with pytest.raises(ServerError) as caught:
            await client.get_deployment("d1")
    assert len(scripted.requests) == 4
    assert len(fake_time.sleeps) == 3
    assert caught.value.status == 503
    assert any("gave up after 4 attempt" in line for line in caught.value.details)


async def test_backoff_grows_exponentially_with_jitter(make_client, fake_time: FakeTime):
    """Sleeps are random x base x 2^(n-1), capped by max_delay."""
    scripted = Scripted(lambda r: httpx2.Response(502, json={"detail": "bad gateway"}))
    async with make_client(scripted, max_attempts=6, max_delay=3.0) as client:
        with pytest.raises(ServerError):
            await client.get_deployment("d1")
    assert fake_time.sleeps == [0.25, 0.5, 1.0, 1.5, 1.5]


async def test_total_time_bounds_the_retries(make_client, fake_time: FakeTime):
    """Retries stop when the next sleep would pass the total-time budget."""
    limited = httpx2.Response(429, headers={"Retry-After": "4"}, json={"detail": "slow"})
    scripted = Scripted(lambda r: limited)
    async with make_client(scripted, max_attempts=100, max_total_seconds=10) as client:
        with pytest.raises(RateLimitedError):
            await client.get_deployment("d1")
    assert fake_time.sleeps == [4.0, 4.0]
    assert len(scripted.requests) == 3


async def test_client_errors_are_not_retried(make_client, fake_time: FakeTime):
    """A 400 is final: one request, no sleep."""
    scripted = Scripted(lambda r: httpx2.Response(400, json={"detail": "no"}))
    async with make_client(scripted) as client:
        with pytest.raises(BadRequestError):
            await client.patch_deployment("d1", DeploymentPatch())
    assert len(scripted.requests) == 1
    assert fake_time.sleeps == []


async def test_patch_is_retried_on_504(make_client):
    """A PATCH that meets a 504 is sent again with the same body."""
    scripted = sequence(httpx2.Response(504, json={"detail": "timeout"}), ok())
    async with make_client(scripted) as client:
        await client.patch_deployment("d1", DeploymentPatch(secret_references=[]))
    assert [r.method for r in scripted.requests] == ["PATCH", "PATCH"]
    assert scripted.bodies()[0] == scripted.bodies()[1] == {"secret_references": []}


async def test_timeout_is_a_connection_failure_after_retries(make_client):
    """Read timeouts count as no response and end in ConnectionFailedError."""
    scripted = Scripted(lambda r: (_ for _ in ()).throw(httpx2.ReadTimeout("slow")))
    async with make_client(scripted, max_attempts=2) as client:
        with pytest.raises(ConnectionFailedError, match="timed out"):
            await client.list_providers()
    assert len(scripted.requests) == 2


def create_server(*, first_post_creates: bool, existing_deleting: bool = False) -> Scripted:
    """A fake whose first POST times out (having created the deployment, or not)."""
    made: list[dict[str, object]] = []
    if existing_deleting:
        made.append(deployment_json("old", "api", status="AWAITING_DELETE"))

    def handler(request: httpx2.Request) -> httpx2.Response:
        posts = [r for r in scripted.requests if r.method == "POST"]
        if request.method == "GET":
            return page(list(made), len(made))
        if len(posts) == 1:
            if first_post_creates:
                made.append(deployment_json("first", "api"))
            raise httpx2.ReadTimeout("no answer")
        made.append(deployment_json("second", "api"))
        return httpx2.Response(201, json=made[-1])

    scripted = Scripted(handler)
    return scripted


async def test_post_that_created_is_adopted_not_duplicated(make_client):
    """A create whose answer was lost is found by name and adopted; no second POST."""
    scripted = create_server(first_post_creates=True)
    async with make_client(scripted) as client:
        deployment = await client.create_deployment(CREATE)
    assert deployment.id == "first"
    assert [r.method for r in scripted.requests] == ["POST", "GET"]
    assert scripted.requests[1].url.params["name_contains"] == "api"


async def test_post_that_did_not_create_is_sent_once_more(make_client):
    """A create that made nothing is looked up, then re-posted once."""
    scripted = create_server(first_post_creates=False)
    async with make_client(scripted) as client:
        deployment = await client.create_deployment(CREATE)
    assert deployment.id == "second"
    assert [r.method for r in scripted.requests] == ["POST", "GET", "POST"]


async def test_deployment_being_deleted_is_not_adopted(make_client):
    """A same-name deployment in AWAITING_DELETE is not mistaken for the new one."""
    scripted = create_server(first_post_creates=False, existing_deleting=True)
    async with make_client(scripted) as client:
        deployment = await client.create_deployment(CREATE)
    assert deployment.id == "second"


async def test_post_conflict_is_not_retried(make_client):
    """A 409 on create raises ConflictError at once, for the caller to adopt or report."""
    scripted = Scripted(lambda r: httpx2.Response(409, json={"detail": "name api exists"}))
    async with make_client(scripted) as client:
        with pytest.raises(ConflictError, match="POST /v2/deployments failed: 409"):
            await client.create_deployment(CREATE)
    assert len(scripted.requests) == 1


async def test_create_sends_minimal_body(make_client):
    """The create body drops nulls but keeps the (empty) secrets list."""
    scripted = Scripted(lambda r: httpx2.Response(201, json=deployment_json("d1", "api")))
    async with make_client(scripted) as client:
        await client.create_deployment(CREATE)
    assert scripted.bodies()[0] == {
        "name": "api",
        "source": "git_host",
        "source_config": {},
        "source_revision_config": {},
        "secrets": [],
    }


def test_backoff_never_exceeds_the_cap():
    """Full jitter stays under min(max_delay, base x 2^(n-1)) whatever the random draw."""
    policy = RetryPolicy(random=lambda: 0.999, base_delay=1.0, max_delay=5.0)
    delays = [policy.backoff(n) for n in range(1, 10)]
    assert all(0 <= d < 5.0 for d in delays)
    assert delays[0] < 1.0


async def test_each_retry_is_told_to_the_observer_with_status_and_wait(
    make_client, fake_time: FakeTime
):
    """`on_retry` hears of every retry (a 503 and a refused connection) with the HTTP
    status (None without a response), the wait in seconds and the failed attempt."""
    scripted = sequence(
        httpx2.Response(503, json={"detail": "busy"}), httpx2.ConnectError("refused"), ok()
    )
    heard: list[RetryNotice] = []
    async with make_client(scripted) as client:
        client.on_retry = heard.append
        await client.get_deployment("d1")
    assert [(n.status, n.attempt) for n in heard] == [(503, 1), (None, 2)]
    assert [n.wait for n in heard] == fake_time.sleeps
    assert heard[0].reason.startswith("GET /v2/deployments/d1 failed: 503")


async def test_a_post_retry_is_told_to_the_observer(make_client, fake_time: FakeTime):
    """A create retried after a 502 (nothing made by the failed attempt) is told too."""
    scripted = sequence(
        httpx2.Response(502, json={"detail": "bad gateway"}),
        page([], 0),
        httpx2.Response(201, json=deployment_json("d1", "api")),
    )
    heard: list[RetryNotice] = []
    async with make_client(scripted) as client:
        client.on_retry = heard.append
        await client.create_deployment(CREATE)
    assert [n.status for n in heard] == [502]


async def test_429s_spend_time_not_attempts(make_client, fake_time: FakeTime):
    """Seven 429s (more than the 5 attempts a caller allows) then success: a rate limit
    slows a request down within the time budget; five 503s in a row still give up."""
    limited = httpx2.Response(429, headers={"Retry-After": "1"}, json={"detail": "slow down"})
    scripted = sequence(*([limited] * 7), ok())
    async with make_client(scripted, max_attempts=5) as client:
        assert (await client.get_deployment("d1")).id == "d1"
    assert len(scripted.requests) == 8
    unavailable = httpx2.Response(503, json={"detail": "down"})
    failing = sequence(*([unavailable] * 6), ok())
    async with make_client(failing, max_attempts=5) as client:
        with pytest.raises(ServerError):
            await client.get_deployment("d1")
    assert len(failing.requests) == 5
