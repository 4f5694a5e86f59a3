"""The shared 429 pause: one rate-limited request holds every request of the client."""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.gate import BackoffGate
from planner.api.retry import RetryNotice, RetryPolicy
from tests.api.api_fakes import FakeTime

pytestmark = pytest.mark.anyio


async def test_the_gate_holds_until_the_deadline_and_never_moves_it_back() -> None:
    """`hold` pushes the deadline forward only; `wait` sleeps exactly until it."""
    time = FakeTime()
    gate = BackoffGate(clock=time.clock, sleep=time.sleep)
    await gate.wait()
    assert time.sleeps == []
    gate.hold(3.0)
    gate.hold(1.0)
    await gate.wait()
    assert time.now == pytest.approx(3.0)
    gate.hold(None)  # no Retry-After: one second
    await gate.wait()
    assert time.now == pytest.approx(4.0)


async def test_a_429_pauses_the_other_requests_of_the_client() -> None:
    """After one request is told 429 with Retry-After: 2, the next request of the same
    client waits for the gate before it is sent."""
    time = FakeTime()
    answers = [httpx2.Response(429, headers={"Retry-After": "2"}, json={"detail": "slow down"})]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if answers:
            return answers.pop()
        return httpx2.Response(200, json={"resources": [], "offset": 0})

    gate = BackoffGate(clock=time.clock, sleep=time.sleep)
    retry = RetryPolicy(max_attempts=1, sleep=time.sleep, clock=time.clock)
    client = ControlPlaneClient(
        "https://cp.test", "key", transport=httpx2.MockTransport(handler), retry=retry, gate=gate
    )
    async with client:
        with pytest.raises(Exception, match="429"):
            await client.list_deployments()
        assert gate.holds == 1
        await client.list_deployments()
    assert time.sleeps == [pytest.approx(2.0)]


async def test_a_pause_is_told_once_and_its_429s_are_not_retries() -> None:
    """Three requests in flight together, all told 429, make one pause for the observer
    (with its wait) and no retry notice: the pause is the news, not each request."""
    arrived: list[httpx2.Request] = []
    everyone = asyncio.Event()

    async def handler(request: httpx2.Request) -> httpx2.Response:
        arrived.append(request)
        if len(arrived) <= 3:
            if len(arrived) == 3:
                everyone.set()
            await everyone.wait()
            return httpx2.Response(429, headers={"Retry-After": "0.05"}, json={"detail": "slow"})
        return httpx2.Response(200, json={"resources": [], "offset": 0})

    gate = BackoffGate()  # real time: the three 429s come within the pause
    pauses: list[float] = []
    retries: list[RetryNotice] = []
    gate.on_pause = pauses.append
    client = ControlPlaneClient(
        "https://cp.test", "key", transport=httpx2.MockTransport(handler), gate=gate
    )
    client.on_retry = retries.append
    async with client:
        await asyncio.gather(*(client.list_deployments() for _ in range(3)))
    assert pauses == [0.05]
    assert retries == []
    assert gate.holds == 3
