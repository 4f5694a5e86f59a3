"""One batched poller for every wait of an apply: revisions to finish, deployments to go.

Each wait is polled on the schedule of its `PollPolicy` (0.2 s, growing with the time it
has waited), but the waits due together share requests: one `GET /v2/deployments` with
the `deployment_ids` filter per 100 of them. The list answers most waits alone: a
deployment whose active revision is the awaited one is DEPLOYED; an id no longer listed
is gone. A revision GET is sent only where the list cannot tell: the deployment is not
listed, its latest revision is not the awaited one (superseded: SKIPPED, or deployed
first), or the awaited revision has been on its way for a while (failed, or still
building: a status check, after `CHECK_FIRST` polls' worth of time, then every half of
the time waited, at most `CHECK_MAX` s apart, and at most `CHECKS_PER_SECOND` for all
waits together). So 1,000 quick revisions cost about ten list requests a round.

The poller's requests have their own budget (`POLL_REQUESTS` at once), apart from the
slots of creates and PATCHes: a revision that finishes is seen when it finishes, not
after every create queued before its poll. Deadline, stop and outage are as for one wait
(`planner.apply.waiter`): a poll with no answer, a 5xx or a 429 is skipped until the
wait's own deadline (the result names the last error); another error ends the waits it
was about.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from planner.api.chunks import chunked
from planner.api.client import IDS_PER_REQUEST
from planner.api.models import DeploymentProgress, RevisionStatus, is_final_revision_status
from planner.apply.waiter import WaitEnd, Waiting, WaitResult, poll_once

POLL_REQUESTS = 4  # the poller's own requests in flight at once
CHECK_FIRST = 5  # the first status check after this many `PollPolicy.initial`s
CHECK_MAX = 30.0  # seconds between status checks of one revision, at most
CHECKS_PER_SECOND = 10.0  # status checks of all waits together


@dataclass(eq=False)
class _Wait:
    """One wait: for REVISION_ID to be final, or (None) for the deployment to be gone."""

    deployment_id: str
    revision_id: str | None
    on_status: Callable[[str], None]
    started: float
    future: asyncio.Future[WaitResult]
    check_at: float
    due: float = 0.0
    last: str | None = None
    error: str | None = None


@dataclass
class Poller:
    """The waits of one apply, polled together by one task (`start`, then `aclose`)."""

    waiting: Waiting
    requests: int = POLL_REQUESTS
    checks_per_second: float = CHECKS_PER_SECOND
    _heap: list[tuple[float, int, _Wait]] = field(default_factory=list)
    _order: itertools.count[int] = field(default_factory=itertools.count)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _waits: set[_Wait] = field(default_factory=set)
    _tokens: float = 0.0
    _filled: float = 0.0

    def __post_init__(self) -> None:
        # the poller's own budget: a poll never waits for a create's slot
        self.waiting = replace(self.waiting, limiter=asyncio.Semaphore(self.requests))
        self._tokens, self._filled = self.checks_per_second, self.waiting.clock()

    def start(self) -> None:
        """Run the loop in a task of its own (started from the executor: its retries
        are reported as no one deployment's)."""
        self._spawn(self._loop())

    async def aclose(self) -> None:
        """Cancel the loop and the polls in flight; waits still open end as stopped."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._end_all(WaitEnd.STOPPED)

    async def revision(
        self, deployment_id: str, revision_id: str, on_status: Callable[[str], None]
    ) -> WaitResult:
        """Wait until the revision is final; report each new status but the final one."""
        return await self._wait(deployment_id, revision_id, on_status)

    async def gone(self, deployment_id: str) -> WaitResult:
        """Wait until the deployment is no longer listed (deletion is asynchronous)."""
        return await self._wait(deployment_id, None, lambda _: None)

    async def _wait(
        self, deployment_id: str, revision_id: str | None, on_status: Callable[[str], None]
    ) -> WaitResult:
        if self.waiting.stop.is_set():
            return WaitResult(WaitEnd.STOPPED, None)
        now = self.waiting.clock()
        first = CHECK_FIRST * self.waiting.policy.initial
        future: asyncio.Future[WaitResult] = asyncio.get_running_loop().create_future()
        wait = _Wait(deployment_id, revision_id, on_status, now, future, now + first)
        # a revision is not done at once; a deployment being deleted may already be gone
        pause = 0.0 if revision_id is None else self.waiting.policy.delay(0.0)
        self._due(wait, now, pause=min(pause, max(0.0, self.waiting.timeout)))
        self._waits.add(wait)
        try:
            return await future
        finally:
            self._waits.discard(wait)

    # --- the loop -----------------------------------------------------------------------

    async def _loop(self) -> None:
        stopped = asyncio.ensure_future(self.waiting.stop.wait())
        woken: asyncio.Future[Any] | None = None
        try:
            while not self.waiting.stop.is_set():
                self._wake.clear()
                now = self.waiting.clock()
                window = self.waiting.policy.initial / 2  # early by a little, in one request
                for batch in chunked(self._take_due(now + window), IDS_PER_REQUEST):
                    self._spawn(self._round(batch))
                sleep = self._heap[0][0] - now if self._heap else None
                woken = asyncio.ensure_future(self._wake.wait())
                await asyncio.wait(
                    {woken, stopped}, timeout=sleep, return_when=asyncio.FIRST_COMPLETED
                )
                woken.cancel()
        finally:
            # cancelled by aclose() while waiting: neither helper task may be left pending
            # (a long-lived process would later collect it: "Task was destroyed but it is
            # pending!")
            await cancelled(stopped, woken)
        self._end_all(WaitEnd.STOPPED)

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _take_due(self, until: float) -> list[_Wait]:
        due: list[_Wait] = []
        while self._heap and self._heap[0][0] <= until:
            at, _, wait = heapq.heappop(self._heap)
            if not wait.future.done() and at == wait.due:
                due.append(wait)
        return due

    def _due(self, wait: _Wait, now: float, *, pause: float | None = None) -> None:
        """Schedule the next poll (not past the deadline), or end the wait there; PAUSE:
        the first one's (a wait is polled at least once, whatever its deadline)."""
        if pause is None:
            waited = now - wait.started
            remaining = self.waiting.timeout - waited
            if remaining <= 0:
                self._end(wait, WaitEnd.TIMEOUT, wait.last)
                return
            pause = min(self.waiting.policy.delay(waited), remaining)
        wait.due = now + pause
        heapq.heappush(self._heap, (wait.due, next(self._order), wait))
        if self._heap[0][2] is wait:
            self._wake.set()  # sooner than the loop planned to look

    def _end(self, wait: _Wait, end: WaitEnd, status: str | None) -> None:
        if not wait.future.done():
            error = wait.error if end is not WaitEnd.FINAL else None
            wait.future.set_result(WaitResult(end, status, error))

    def _fail(self, wait: _Wait, error: BaseException) -> None:
        if not wait.future.done():
            wait.future.set_exception(error)

    def _end_all(self, end: WaitEnd) -> None:
        for wait in list(self._waits):
            self._end(wait, end, wait.last)

    # --- one round: a list request for up to 100 waits, then the revision GETs it calls for

    async def _round(self, waits: list[_Wait]) -> None:
        """Any error that is no outage ends the waits it was about (never the loop)."""
        ids = [w.deployment_id for w in waits]
        try:
            found, error = await poll_once(
                self.waiting, lambda: self.waiting.client.progress_by_ids(ids)
            )
            checks = self._sort(waits, found, error)
        except Exception as failure:
            for wait in waits:
                self._fail(wait, failure)
            return
        await asyncio.gather(*(self._check(wait) for wait in checks))

    def _sort(
        self, waits: list[_Wait], found: dict[str, DeploymentProgress] | None, error: str | None
    ) -> list[_Wait]:
        """End what the listing answers, schedule the rest; the waits that need a GET."""
        checks = []
        for wait in waits:
            if wait.future.done():  # cancelled meanwhile (the apply was cut short)
                continue
            wait.error = error
            if found is None:
                self._due(wait, self.waiting.clock())
            elif self._answered(wait, found.get(wait.deployment_id)):
                continue
            elif self._needs_check(wait, found.get(wait.deployment_id)):
                checks.append(wait)
            else:
                self._due(wait, self.waiting.clock())
        return checks

    def _answered(self, wait: _Wait, deployment: DeploymentProgress | None) -> bool:
        """Whether the listing alone ends the wait."""
        if wait.revision_id is None:
            if deployment is None:
                self._end(wait, WaitEnd.FINAL, "gone")
                return True
            wait.last = str(deployment.status)
            return False
        if deployment is not None and deployment.active_revision_id == wait.revision_id:
            self._end(wait, WaitEnd.FINAL, RevisionStatus.DEPLOYED.value)
            return True
        return False

    def _needs_check(self, wait: _Wait, deployment: DeploymentProgress | None) -> bool:
        """A revision GET: where the list cannot tell, or when a status check is due."""
        if wait.revision_id is None:
            return False
        if deployment is None or deployment.latest_revision_id != wait.revision_id:
            return True
        now = self.waiting.clock()
        if now < wait.check_at:
            return False
        rate = self.checks_per_second
        self._tokens = min(rate, self._tokens + (now - self._filled) * rate)
        self._filled = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    async def _check(self, wait: _Wait) -> None:
        """GET the revision: its status, final or not (an error ends this wait only)."""
        try:
            await self._checked(wait)
        except Exception as failure:
            self._fail(wait, failure)

    async def _checked(self, wait: _Wait) -> None:
        assert wait.revision_id is not None
        revision_id = wait.revision_id
        revision, error = await poll_once(
            self.waiting, lambda: self.waiting.client.get_revision(wait.deployment_id, revision_id)
        )
        now = self.waiting.clock()
        wait.error = error
        if revision is not None:
            status = str(revision.status)
            if is_final_revision_status(status):
                self._end(wait, WaitEnd.FINAL, status)
                return
            if status != wait.last and not wait.future.done():
                wait.last = status
                wait.on_status(status)
        every = max(CHECK_FIRST * self.waiting.policy.initial, (now - wait.started) / 2)
        wait.check_at = now + min(CHECK_MAX, every)
        self._due(wait, now)


async def cancelled(*futures: asyncio.Future[Any] | None) -> None:
    """Cancel FUTURES (None: none) and wait until they are done, even when the task
    awaiting them is being cancelled itself."""
    left = [f for f in futures if f is not None and not f.done()]
    for future in left:
        future.cancel()
    if left:
        await asyncio.wait(left)
