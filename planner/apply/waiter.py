"""Waiting for a revision to finish or a deployment to be gone: the policy and one wait.

An apply waits for many at once through `planner.apply.poller` (one batched poller); the
functions here wait for one, by itself. A wait polls with a growing, jittered delay
(0.2 s growing to 5 s by default, see `PollPolicy`), holding a slot of the limiter only
while a request is in flight, so the limiter bounds requests, not waiters. A wait ends on a
final status (DEPLOYED, SKIPPED, `*_FAILED`), at the deadline, or when the apply is told
to stop. INTERRUPTED and UNKNOWN are not final: polling goes on.

An outage is not a failure of the deployment: a poll that gets no answer (connection
error, timeout) or a 5xx/429 after the client's own retries is skipped and polling goes
on, with the same growing delay, until the deadline; the result then names the last
error seen. Other errors (404, 401, ...) end the wait at once.
"""

from __future__ import annotations

import asyncio
import random as _random
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from planner.api.client import ControlPlaneClient
from planner.api.models import is_final_revision_status
from planner.api.retry import is_retryable
from planner.errors import ApiError

T = TypeVar("T")


@dataclass(frozen=True)
class PollPolicy:
    """The pause before the next poll: `fraction` of the time waited so far, at least
    `initial` and at most `maximum` seconds, +- `jitter` (a share of it).

    Growing with the time waited (0.2 s for the first 2 s, 5 s for a revision that takes
    half an hour) keeps requests few on long waits while a revision that finishes is
    seen at most ~`fraction` late: 0.2 s after a 2 s revision, not a whole doubling
    later (a fifth, 0.4 s there, left a 1,000-create apply ~0.25 s behind a client
    polling every 0.2 s; the list polls are batched, so the extra requests are few).
    """

    initial: float = 0.2
    fraction: float = 0.1
    maximum: float = 5.0
    jitter: float = 0.1
    random: Callable[[], float] = field(default=_random.random, repr=False)

    def delay(self, waited: float) -> float:
        base = min(self.maximum, max(self.initial, self.fraction * waited))
        return base * (1.0 - self.jitter + 2.0 * self.jitter * self.random())


class WaitEnd(StrEnum):
    FINAL = "final"
    TIMEOUT = "timeout"
    STOPPED = "stopped"


@dataclass(frozen=True)
class WaitResult:
    """How a wait ended, the last status seen, and the last poll error (if the last
    polls failed: an outage that outlasted the deadline)."""

    end: WaitEnd
    status: str | None
    last_error: str | None = None


def is_outage(error: ApiError) -> bool:
    """A poll error that says nothing about the deployment: no answer, 429 or any 5xx."""
    return is_retryable(error) or (error.status is not None and error.status >= 500)


@dataclass
class Waiting:
    """What every wait of one apply shares: the policy, the request limiter, the stop
    signal, the clock and the deadline (`wait_timeout` seconds from each wait's start)."""

    client: ControlPlaneClient
    limiter: AbstractAsyncContextManager[object]
    stop: asyncio.Event
    policy: PollPolicy = field(default_factory=PollPolicy)
    timeout: float = 1800.0
    clock: Callable[[], float] = time.monotonic


async def sleep_unless_stopped(seconds: float, stop: asyncio.Event) -> bool:
    """Sleep SECONDS; True when `stop` was set meanwhile (it cuts the sleep short)."""
    if stop.is_set():
        return True
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except TimeoutError:
        return False
    return True


async def wait_for_revision(
    waiting: Waiting,
    deployment_id: str,
    revision_id: str,
    on_status: Callable[[str], None],
) -> WaitResult:
    """Poll the revision until it is final; report each new status but the final one
    (the caller reports how it ended) to `on_status`."""
    started = waiting.clock()
    last: str | None = None
    error: str | None = None
    while True:
        revision, error = await poll_once(
            waiting, lambda: waiting.client.get_revision(deployment_id, revision_id)
        )
        if revision is not None:
            status = str(revision.status)
            if is_final_revision_status(status):
                return WaitResult(WaitEnd.FINAL, status)
            if status != last:
                last = status
                on_status(status)
        end = await _pause(waiting, started)
        if end is not None:
            return WaitResult(end, last, error)


async def wait_until_gone(waiting: Waiting, deployment_id: str) -> WaitResult:
    """Poll until the deployment is no longer listed (deletion is asynchronous)."""
    started = waiting.clock()
    last: str | None = None
    while True:
        found, error = await poll_once(
            waiting, lambda: waiting.client.progress_by_ids([deployment_id])
        )
        if found is not None:
            if deployment_id not in found:
                return WaitResult(WaitEnd.FINAL, "gone")
            last = str(found[deployment_id].status)
        end = await _pause(waiting, started)
        if end is not None:
            return WaitResult(end, last, error)


async def poll_once(
    waiting: Waiting, request: Callable[[], Awaitable[T]]
) -> tuple[T | None, str | None]:
    """One poll under the limiter: its answer, or None and the error of an outage."""
    try:
        async with waiting.limiter:
            return await request(), None
    except ApiError as error:
        if not is_outage(error):
            raise
        return None, error.message


async def _pause(waiting: Waiting, started: float) -> WaitEnd | None:
    """Sleep before the next poll; the reason to stop polling, if any."""
    waited = waiting.clock() - started
    remaining = waiting.timeout - waited
    if remaining <= 0:
        return WaitEnd.TIMEOUT
    if await sleep_unless_stopped(min(waiting.policy.delay(waited), remaining), waiting.stop):
        return WaitEnd.STOPPED
    return None
