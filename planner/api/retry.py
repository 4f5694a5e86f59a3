"""Retries with exponential backoff and full jitter, bounded by a time budget.

Retried: no response at all (connection refused or reset, timeout), 429 (after
`Retry-After` seconds when the server gives them, capped) and 502/503/504. Everything
else is final. A request rides out an outage for the whole budget (`max_total_seconds`,
60 s), however many attempts that takes: an outage is measured in seconds, not in
attempts (`max_attempts` bounds them only when a caller sets it).
Sleep, randomness and the clock are injectable so tests run instantly and exactly.
Each retry can be observed (`on_retry` gets a `RetryNotice`), e.g. to show it in
apply's progress; the observer is a plain callable, so this layer knows no reporter.
A POST is never retried blindly: the caller passes `before_retry`, which looks for what
the failed attempt may have made and, when it finds it, ends the retries with it; a
look-up that itself meets the outage is one more failed attempt (the POST is not sent
again until a look-up has answered).
"""

from __future__ import annotations

import asyncio
import logging
import random as _random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from planner.api.errors import ConnectionFailedError, RateLimitedError
from planner.errors import ApiError

T = TypeVar("T")
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

logger = logging.getLogger("planner.api")


@dataclass(frozen=True)
class RetryPolicy:
    """How long (and, when set, how often) to retry; `sleep`, `random` and `clock` are
    seams for tests."""

    max_attempts: int | None = None
    max_total_seconds: float = 60.0
    base_delay: float = 0.5
    max_delay: float = 10.0
    max_retry_after: float = 30.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    random: Callable[[], float] = field(default=_random.random, repr=False)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def backoff(self, failed_attempts: int) -> float:
        """Full jitter: uniform in [0, min(max_delay, base * 2^(n-1)))."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (failed_attempts - 1))
        return self.random() * ceiling

    def delay_for(self, error: ApiError, failed_attempts: int) -> float:
        """The server's `Retry-After` (capped) when a 429 gives one, else the backoff."""
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            return min(error.retry_after, self.max_retry_after)
        return self.backoff(failed_attempts)


NO_RETRIES = RetryPolicy(max_attempts=1)


@dataclass(frozen=True)
class RetryNotice:
    """A request failed with a retryable error and is sent again after `wait` seconds.

    `status` is the HTTP status (None: no response came); `attempt` the failed one
    (1-based); `reason` the error's one line (method, path, status, detail)."""

    status: int | None
    wait: float
    attempt: int
    reason: str
    error: ApiError = field(repr=False, compare=False)


RetryObserver = Callable[[RetryNotice], None]


def is_retryable(error: ApiError) -> bool:
    return isinstance(error, ConnectionFailedError) or error.status in RETRYABLE_STATUSES


def _give_up(error: ApiError, attempts: int, elapsed: float) -> ApiError:
    error.gave_up = f"gave up after {attempts} attempt(s) in {elapsed:.1f} s"
    error.details.append(error.gave_up)
    return error


async def run_with_retries(
    policy: RetryPolicy,
    operation: Callable[[], Awaitable[T]],
    *,
    before_retry: Callable[[], Awaitable[T | None]] | None = None,
    on_retry: RetryObserver | None = None,
) -> T:
    """`operation()` until it succeeds, fails for good, or the time budget (and the
    attempts, when `max_attempts` is set) runs out; 429s count against the time only: a
    rate limit slows a run down, never fails it.

    `before_retry` runs before each retry; a non-None result is returned instead of
    retrying (the first attempt did the work after all). A retryable failure of it counts
    as a failed attempt, and it runs again before the next one. `on_retry` hears of each
    retry before its wait.
    """
    retries = _Retries(policy, on_retry)
    looked_up = True  # nothing to look for before the first attempt
    while True:
        try:
            if not looked_up and before_retry is not None:
                found = await before_retry()
                if found is not None:
                    return found
            looked_up = True
            return await operation()
        except ApiError as error:
            await retries.after(error)
            looked_up = False


class _Retries:
    """The attempts of one request so far: whether and how long to wait after a failure."""

    def __init__(self, policy: RetryPolicy, on_retry: RetryObserver | None) -> None:
        self.policy = policy
        self.on_retry = on_retry
        self.started = policy.clock()
        self.attempts = self.failures = 0

    async def after(self, error: ApiError) -> None:
        """Wait before the next attempt, or raise ERROR when it is final or time is up."""
        if not is_retryable(error):
            raise error
        policy = self.policy
        self.attempts += 1
        # A 429 asks to slow down, not to give up: it spends time, not attempts
        # (with retries on at all: one attempt means one).
        slowed = isinstance(error, RateLimitedError) and policy.max_attempts != 1
        self.failures += 0 if slowed else 1
        delay = policy.delay_for(error, self.attempts)
        elapsed = policy.clock() - self.started
        out_of_attempts = policy.max_attempts is not None and self.failures >= policy.max_attempts
        if out_of_attempts or elapsed + delay > policy.max_total_seconds:
            raise _give_up(error, self.attempts, elapsed) from None
        logger.info("retrying in %.2f s after: %s", delay, error.message)
        if self.on_retry is not None:
            self.on_retry(RetryNotice(error.status, delay, self.attempts, error.message, error))
        await policy.sleep(delay)
