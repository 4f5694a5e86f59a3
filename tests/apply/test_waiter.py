"""Polling revisions: backoff, final statuses, transient ones, deadline and stop."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.retry import NO_RETRIES
from planner.apply.waiter import (
    PollPolicy,
    WaitEnd,
    Waiting,
    sleep_unless_stopped,
    wait_for_revision,
    wait_until_gone,
)
from planner.errors import ApiError

DEP = "00000000-0000-4000-8000-0000000000d1"
REV = "00000000-0000-4000-8000-0000000000e1"
QUICK = PollPolicy(initial=0.001, maximum=0.002, jitter=0.0)


def revision_client(statuses: list[str], seen: list[str]) -> ControlPlaneClient:
    """A client whose revision GETs answer the STATUSES in turn (the last one repeats)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        status = statuses[min(len(seen), len(statuses) - 1)]
        seen.append(status)
        body = {
            "id": REV,
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "status": status,
        }
        return httpx2.Response(200, json=body)

    return ControlPlaneClient(
        "https://cp.test", "key", transport=httpx2.MockTransport(handler), retry=NO_RETRIES
    )


def waiting(client: ControlPlaneClient, **kwargs: object) -> Waiting:
    return Waiting(
        client=client,
        limiter=asyncio.Semaphore(2),
        stop=asyncio.Event(),
        policy=QUICK,
        **kwargs,  # type: ignore[arg-type]
    )


def test_poll_delays_grow_with_the_time_waited_up_to_the_cap() -> None:
    """The pause is 0.2 s at first, a tenth of the time waited later, 5 s at most,
    +- 10% jitter."""
    low = PollPolicy(random=lambda: 0.0)
    high = PollPolicy(random=lambda: 1.0)
    assert low.delay(0.0) == pytest.approx(0.2 * 0.9)
    assert high.delay(0.5) == pytest.approx(0.2 * 1.1)
    assert high.delay(2.0) == pytest.approx(0.2 * 1.1)
    assert low.delay(4.0) == pytest.approx(0.4 * 0.9)
    assert high.delay(1800.0) == pytest.approx(5.0 * 1.1)


@pytest.mark.anyio
async def test_transient_statuses_keep_polling_until_deployed() -> None:
    """INTERRUPTED and UNKNOWN are not final: the wait goes on to DEPLOYED, and every
    status but the final one is reported once."""
    seen: list[str] = []
    reported: list[str] = []
    statuses = ["QUEUED", "INTERRUPTED", "INTERRUPTED", "UNKNOWN", "DEPLOYING", "DEPLOYED"]
    async with revision_client(statuses, seen) as client:
        result = await wait_for_revision(waiting(client), DEP, REV, reported.append)
    assert (result.end, result.status) == (WaitEnd.FINAL, "DEPLOYED")
    assert reported == ["QUEUED", "INTERRUPTED", "UNKNOWN", "DEPLOYING"]
    assert len(seen) == 6


@pytest.mark.anyio
@pytest.mark.parametrize("final", ["BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "SKIPPED"])
async def test_failed_and_skipped_statuses_end_the_wait(final: str) -> None:
    """Every *_FAILED status and SKIPPED is final."""
    seen: list[str] = []
    async with revision_client(["BUILDING", final], seen) as client:
        result = await wait_for_revision(waiting(client), DEP, REV, lambda _: None)
    assert (result.end, result.status) == (WaitEnd.FINAL, final)


@pytest.mark.anyio
async def test_the_deadline_ends_the_wait_with_the_last_status() -> None:
    """A revision that never finishes ends the wait at the timeout, with its status."""
    seen: list[str] = []
    async with revision_client(["BUILDING"], seen) as client:
        result = await wait_for_revision(waiting(client, timeout=0.02), DEP, REV, lambda _: None)
    assert (result.end, result.status) == (WaitEnd.TIMEOUT, "BUILDING")
    assert len(seen) >= 2


@pytest.mark.anyio
async def test_stop_cuts_a_long_pause_short() -> None:
    """A stop set during the pause between polls ends the wait at once."""
    seen: list[str] = []
    slow = PollPolicy(initial=30.0, jitter=0.0)
    async with revision_client(["BUILDING"], seen) as client:
        w = Waiting(client=client, limiter=asyncio.Semaphore(1), stop=asyncio.Event(), policy=slow)
        asyncio.get_running_loop().call_later(0.05, w.stop.set)
        result = await asyncio.wait_for(wait_for_revision(w, DEP, REV, lambda _: None), 5)
    assert result.end is WaitEnd.STOPPED
    assert seen == ["BUILDING"]


@pytest.mark.anyio
async def test_sleep_unless_stopped_says_whether_it_was_stopped() -> None:
    """It returns False after a full sleep, True at once when the stop is already set."""
    stop = asyncio.Event()
    assert await sleep_unless_stopped(0.001, stop) is False
    stop.set()
    assert await sleep_unless_stopped(30.0, stop) is True


@pytest.mark.anyio
async def test_wait_until_gone_polls_until_the_id_is_not_listed() -> None:
    """The wait ends once the listing by id no longer returns the deployment."""
    calls: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        resources = []
        if len(calls) < 3:
            resources = [
                {
                    "id": DEP,
                    "tenant_id": DEP,
                    "name": "old",
                    "source": "git_host",
                    "created_at": "2024-01-01T00:00:00Z",
                    "updated_at": "2024-01-01T00:00:00Z",
                    "status": "AWAITING_DELETE",
                }
            ]
        return httpx2.Response(200, json={"resources": resources, "offset": len(resources)})

    client = ControlPlaneClient("https://cp.test", "key", transport=httpx2.MockTransport(handler))
    async with client:
        result = await wait_until_gone(waiting(client), DEP)
    assert (result.end, result.status) == (WaitEnd.FINAL, "gone")
    assert len(calls) == 3


def flaky_revision_client(answers: list[object], seen: list[object]) -> ControlPlaneClient:
    """A client whose revision GETs meet the ANSWERS in turn (the last one repeats): an
    int is that HTTP status, an exception is raised as the transport's, a str is a
    revision status."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        answer = answers[min(len(seen), len(answers) - 1)]
        seen.append(answer)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, int):
            return httpx2.Response(answer, json={"detail": f"status {answer}"})
        body = {"id": REV, "created_at": "2024-01-01T00:00:00Z", "status": answer}
        return httpx2.Response(200, json={**body, "updated_at": body["created_at"]})

    return ControlPlaneClient(
        "https://cp.test", "key", transport=httpx2.MockTransport(handler), retry=NO_RETRIES
    )


@pytest.mark.anyio
async def test_an_outage_while_polling_does_not_end_the_wait() -> None:
    """Connection errors, 5xx and 429 are skipped: polling goes on through them, past
    the client's own retries, until the revision is final."""
    seen: list[object] = []
    refused = httpx2.ConnectError("connection refused")
    answers: list[object] = ["BUILDING", *[refused] * 8, 502, 503, 500, 429, "DEPLOYED"]
    async with flaky_revision_client(answers, seen) as client:
        result = await wait_for_revision(waiting(client), DEP, REV, lambda _: None)
    assert (result.end, result.status) == (WaitEnd.FINAL, "DEPLOYED")
    assert len(seen) == len(answers)


@pytest.mark.anyio
async def test_an_outage_past_the_deadline_names_the_last_error() -> None:
    """A server that stays away until the deadline ends the wait at the timeout, with
    the last status seen and the last poll error."""
    seen: list[object] = []
    async with flaky_revision_client(["BUILDING", 503], seen) as client:
        result = await wait_for_revision(waiting(client, timeout=0.05), DEP, REV, lambda _: None)
    assert (result.end, result.status) == (WaitEnd.TIMEOUT, "BUILDING")
    assert result.last_error is not None and "503" in result.last_error
    assert len(seen) >= 3


@pytest.mark.anyio
async def test_a_poll_answered_404_ends_the_wait_with_the_error() -> None:
    """An error that is about the deployment (404: it is gone) is not an outage: it
    ends the wait at once."""
    seen: list[object] = []
    async with flaky_revision_client(["BUILDING", 404], seen) as client:
        with pytest.raises(ApiError) as raised:
            await wait_for_revision(waiting(client), DEP, REV, lambda _: None)
    assert raised.value.status == 404
    assert len(seen) == 2
