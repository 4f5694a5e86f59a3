"""Waiting for revisions to finish and deployments to be gone, many at once.

One task per deployment polls with a growing, jittered delay (0.2 s growing to 5 s by
default), holding a slot of the shared request limiter only while a request is in flight,
so `--parallelism` bounds requests, not waiters. A poll ends on a final status (DEPLOYED,
SKIPPED, `*_FAILED`), at the deadline, or when the apply is told to stop. INTERRUPTED and
UNKNOWN are not final: polling goes on.
"""

from __future__ import annotations

import asyncio
import random as _random
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from enum import StrEnum

from planner.api.client import ControlPlaneClient
from planner.api.models import is_final_revision_status


@dataclass(frozen=True)
class PollPolicy:
    """Delays between polls: `initial * factor**n`, capped at `maximum`, +- `jitter` share."""

    initial: float = 0.2
    factor: float = 1.5
    maximum: float = 5.0
    jitter: float = 0.2
    random: Callable[[], float] = field(default=_random.random, repr=False)

    def delay(self, polls_done: int) -> float:
        base = min(self.maximum, self.initial * self.factor**polls_done)
        return base * (1.0 - self.jitter + 2.0 * self.jitter * self.random())


class WaitEnd(StrEnum):
    FINAL = "final"
    TIMEOUT = "timeout"
    STOPPED = "stopped"


@dataclass(frozen=True)
class WaitResult:
    end: WaitEnd
    status: str | None


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
    deadline = waiting.clock() + waiting.timeout
    last: str | None = None
    polls = 0
    while True:
        async with waiting.limiter:
            revision = await waiting.client.get_revision(deployment_id, revision_id)
        status = str(revision.status)
        if is_final_revision_status(status):
            return WaitResult(WaitEnd.FINAL, status)
        if status != last:
            last = status
            on_status(status)
        end = await _pause(waiting, deadline, polls)
        if end is not None:
            return WaitResult(end, last)
        polls += 1


async def wait_until_gone(waiting: Waiting, deployment_id: str) -> WaitResult:
    """Poll until the deployment is no longer listed (deletion is asynchronous)."""
    deadline = waiting.clock() + waiting.timeout
    polls = 0
    while True:
        async with waiting.limiter:
            found = await waiting.client.get_deployments_by_ids([deployment_id])
        if deployment_id not in found:
            return WaitResult(WaitEnd.FINAL, "gone")
        end = await _pause(waiting, deadline, polls)
        if end is not None:
            return WaitResult(end, str(found[deployment_id].status))
        polls += 1


async def _pause(waiting: Waiting, deadline: float, polls: int) -> WaitEnd | None:
    """Sleep before the next poll; the reason to stop polling, if any."""
    remaining = deadline - waiting.clock()
    if remaining <= 0:
        return WaitEnd.TIMEOUT
    if await sleep_unless_stopped(min(waiting.policy.delay(polls), remaining), waiting.stop):
        return WaitEnd.STOPPED
    return None
