"""The batched poller: list requests for many waits, revision GETs only where needed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.retry import NO_RETRIES
from planner.apply.poller import Poller
from planner.apply.waiter import PollPolicy, WaitEnd, Waiting
from planner.errors import ApiError

pytestmark = pytest.mark.anyio

T = TypeVar("T")
QUICK = PollPolicy(initial=0.002, maximum=0.004, jitter=0.0)
STAMP = "2024-01-01T00:00:00Z"


def dep_id(i: int) -> str:
    return f"00000000-0000-4000-8000-{i:012d}"


def rev_id(i: int) -> str:
    return f"00000000-0000-4000-9000-{i:012d}"


@dataclass
class Plane:
    """A fake control plane: per deployment its latest and active revision, per revision
    the statuses its GETs answer in turn (the last repeats); `answers` overrides the next
    list requests (an int: that HTTP status; an exception: raised by the transport)."""

    latest: dict[str, str] = field(default_factory=dict)
    active: dict[str, str | None] = field(default_factory=dict)
    statuses: dict[str, list[str]] = field(default_factory=dict)
    answers: list[object] = field(default_factory=list)
    lists: list[int] = field(default_factory=list)  # ids asked per list request
    gets: list[str] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path == "/v2/deployments":
            return self.listing(request)
        revision = path.rsplit("/", 1)[1]
        self.gets.append(revision)
        if revision not in self.statuses:
            return httpx2.Response(404, json={"detail": "not found"})
        seen = self.gets.count(revision)
        steps = self.statuses[revision]
        status = steps[min(seen, len(steps)) - 1]
        body = {"id": revision, "created_at": STAMP, "updated_at": STAMP, "status": status}
        return httpx2.Response(200, json=body)

    def listing(self, request: httpx2.Request) -> httpx2.Response:
        ids = request.url.params["deployment_ids"].split(",")
        self.lists.append(len(ids))
        if self.answers:
            answer = self.answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            assert isinstance(answer, int)
            return httpx2.Response(answer, json={"detail": f"status {answer}"})
        resources = [self.deployment(i) for i in ids if i in self.latest]
        return httpx2.Response(200, json={"resources": resources, "offset": len(resources)})

    def deployment(self, deployment_id: str) -> dict[str, object]:
        return {
            "id": deployment_id,
            "tenant_id": deployment_id,
            "name": f"d-{deployment_id[-4:]}",
            "source": "internal_docker",
            "created_at": STAMP,
            "updated_at": STAMP,
            "status": "READY",
            "latest_revision_id": self.latest[deployment_id],
            "active_revision_id": self.active.get(deployment_id),
        }

    def client(self) -> ControlPlaneClient:
        transport = httpx2.MockTransport(self.handle)
        return ControlPlaneClient("https://cp.test", "key", transport=transport, retry=NO_RETRIES)


def ignore(status: str) -> None:
    """A status reported: not looked at."""


def poller_for(
    client: ControlPlaneClient,
    *,
    timeout: float = 5.0,
    limiter: asyncio.Semaphore | None = None,
    checks_per_second: float = 10.0,
) -> Poller:
    waiting = Waiting(
        client=client,
        limiter=limiter or asyncio.Semaphore(1),
        stop=asyncio.Event(),
        policy=QUICK,
        timeout=timeout,
    )
    return Poller(waiting, checks_per_second=checks_per_second)


async def polled(poller: Poller, work: Callable[[], Awaitable[T]]) -> T:
    poller.start()
    try:
        return await asyncio.wait_for(work(), 10)
    finally:
        await poller.aclose()


async def test_many_waits_share_list_requests_and_need_no_revision_get() -> None:
    """250 revisions that become active are all seen through lists of at most 100 ids,
    without one revision GET, and without taking the apply's request slots."""
    plane = Plane()
    for i in range(250):
        plane.latest[dep_id(i)] = rev_id(i)
        plane.active[dep_id(i)] = rev_id(i)
    async with plane.client() as client:
        held = asyncio.Semaphore(1)
        await held.acquire()  # every slot of the apply taken: the poller has its own
        poller = poller_for(client, limiter=held)
        waits = [poller.revision(dep_id(i), rev_id(i), lambda _: None) for i in range(250)]
        results = await polled(poller, lambda: asyncio.gather(*waits))
    assert {(r.end, r.status) for r in results} == {(WaitEnd.FINAL, "DEPLOYED")}
    assert plane.gets == []
    assert max(plane.lists) <= 100 and sum(plane.lists) == 250
    assert len(plane.lists) <= 5


async def test_a_superseded_revision_is_looked_up_by_get() -> None:
    """When the latest revision is no longer the awaited one, a GET tells how it ended."""
    plane = Plane(latest={dep_id(1): rev_id(2)}, statuses={rev_id(1): ["SKIPPED"]})
    async with plane.client() as client:
        poller = poller_for(client)
        result = await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
    assert (result.end, result.status) == (WaitEnd.FINAL, "SKIPPED")
    assert plane.gets == [rev_id(1)]


async def test_a_revision_that_stays_inactive_gets_status_checks_until_it_fails() -> None:
    """A revision that never becomes active is checked by GET: each new status is
    reported once, and BUILD_FAILED ends the wait."""
    plane = Plane(
        latest={dep_id(1): rev_id(1)},
        statuses={rev_id(1): ["QUEUED", "BUILDING", "BUILDING", "BUILD_FAILED"]},
    )
    reported: list[str] = []
    async with plane.client() as client:
        poller = poller_for(client)
        result = await polled(
            poller, lambda: poller.revision(dep_id(1), rev_id(1), reported.append)
        )
    assert (result.end, result.status) == (WaitEnd.FINAL, "BUILD_FAILED")
    assert reported == ["QUEUED", "BUILDING"]
    assert len(plane.gets) == 4


async def test_status_checks_of_all_waits_are_rate_limited() -> None:
    """With one status check a second for everyone, 20 slow revisions polled for 0.3 s
    get at most two GETs between them, while their lists go on."""
    plane = Plane()
    for i in range(20):
        plane.latest[dep_id(i)] = rev_id(i)
        plane.statuses[rev_id(i)] = ["BUILDING"]
    async with plane.client() as client:
        poller = poller_for(client, timeout=0.3, checks_per_second=1.0)
        waits = [poller.revision(dep_id(i), rev_id(i), lambda _: None) for i in range(20)]
        results = await polled(poller, lambda: asyncio.gather(*waits))
    assert {r.end for r in results} == {WaitEnd.TIMEOUT}
    assert 1 <= len(plane.gets) <= 2
    assert len(plane.lists) >= 3


async def test_an_outage_of_the_list_does_not_end_the_waits() -> None:
    """Connection errors, 5xx and 429 on the list are skipped until it answers."""
    refused = httpx2.ConnectError("connection refused")
    plane = Plane(
        latest={dep_id(1): rev_id(1)},
        active={dep_id(1): rev_id(1)},
        answers=[refused, refused, 502, 503, 429],
    )
    async with plane.client() as client:
        poller = poller_for(client)
        result = await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
    assert (result.end, result.status) == (WaitEnd.FINAL, "DEPLOYED")
    assert len(plane.lists) == 6


async def test_an_outage_past_the_deadline_names_the_last_error() -> None:
    """A list that fails until the deadline ends the wait at the timeout, naming the
    last poll error."""
    plane = Plane(latest={dep_id(1): rev_id(1)}, answers=[503] * 1000)
    async with plane.client() as client:
        poller = poller_for(client, timeout=0.05)
        result = await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
    assert result.end is WaitEnd.TIMEOUT
    assert "503" in (result.last_error or "")


async def test_a_deployment_gone_while_awaited_ends_its_wait_with_the_404() -> None:
    """A deployment no longer listed is looked up; the 404 ends its wait with the error."""
    plane = Plane()
    async with plane.client() as client:
        poller = poller_for(client)
        with pytest.raises(ApiError) as raised:
            await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
    assert raised.value.status == 404


async def test_a_list_refused_for_good_ends_every_wait_it_was_about() -> None:
    """An error that is no outage (401) ends the waits of that list request."""
    plane = Plane(latest={dep_id(1): rev_id(1)}, answers=[401])
    async with plane.client() as client:
        poller = poller_for(client)
        with pytest.raises(ApiError) as raised:
            await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
    assert raised.value.status == 401


async def test_waiting_until_gone_ends_when_the_id_is_no_longer_listed() -> None:
    """A deployment being deleted is polled until the list no longer has it."""
    plane = Plane(latest={dep_id(1): rev_id(1)})
    async with plane.client() as client:
        poller = poller_for(client)
        asyncio.get_running_loop().call_later(0.05, plane.latest.clear)
        result = await polled(poller, lambda: poller.gone(dep_id(1)))
    assert (result.end, result.status) == (WaitEnd.FINAL, "gone")
    assert len(plane.lists) >= 2


async def test_a_stop_ends_every_wait_at_once() -> None:
    """A stop set while waits are open ends them as stopped; a wait begun after it too."""
    plane = Plane(latest={dep_id(1): rev_id(1)}, statuses={rev_id(1): ["BUILDING"]})
    async with plane.client() as client:
        poller = poller_for(client, timeout=60.0)
        asyncio.get_running_loop().call_later(0.05, poller.waiting.stop.set)
        result = await polled(poller, lambda: poller.revision(dep_id(1), rev_id(1), ignore))
        late = await poller.revision(dep_id(1), rev_id(1), ignore)
    assert result.end is WaitEnd.STOPPED
    assert late.end is WaitEnd.STOPPED


async def test_a_failing_status_callback_ends_only_its_own_wait() -> None:
    """An error raised while reporting one wait's status fails that wait, not the others."""
    plane = Plane(
        latest={dep_id(1): rev_id(1), dep_id(2): rev_id(2)},
        statuses={rev_id(1): ["BUILDING"], rev_id(2): ["BUILDING", "DEPLOYED"]},
    )

    def broken(status: str) -> None:
        raise BrokenPipeError(status)

    async with plane.client() as client:
        poller = poller_for(client)
        waits = [
            poller.revision(dep_id(1), rev_id(1), broken),
            poller.revision(dep_id(2), rev_id(2), ignore),
        ]
        results = await polled(poller, lambda: asyncio.gather(*waits, return_exceptions=True))
    assert isinstance(results[0], BrokenPipeError)
    assert not isinstance(results[1], BaseException)
    assert (results[1].end, results[1].status) == (WaitEnd.FINAL, "DEPLOYED")
