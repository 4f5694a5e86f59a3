"""A pause shared by every request of one client: when one request is told 429, all wait.

Without it each worker of a parallel apply learns about the rate limit on its own and
the server keeps rejecting the others; with it, one `Retry-After` holds every request
until it has passed, then they resume together. `on_pause` hears of each pause once,
when a 429 closes an open gate (not of every request the pause holds).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

PauseObserver = Callable[[float], None]  # the seconds every request is held


class BackoffGate:
    """Holds requests until a deadline that a 429 pushes forward (never back)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        max_hold: float = 30.0,
    ) -> None:
        self._clock = clock
        self._sleep = sleep
        self._max_hold = max_hold
        self._until = 0.0
        self.holds = 0
        self.on_pause: PauseObserver | None = None

    def hold(self, seconds: float | None) -> None:
        """Close the gate for SECONDS from now (1 s when the server gave no Retry-After)."""
        wait = min(self._max_hold, seconds if seconds is not None else 1.0)
        now = self._clock()
        was_open = self._until <= now
        self._until = max(self._until, now + wait)
        self.holds += 1
        if was_open and self.on_pause is not None:
            self.on_pause(wait)

    async def wait(self) -> None:
        """Return once the gate is open (at once when it is)."""
        while (remaining := self._until - self._clock()) > 0:
            await self._sleep(remaining)
