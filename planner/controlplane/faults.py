"""Faults for testing clients: latency, random 503s and a per-key rate limit.

An ASGI middleware that runs before routing, so a rejected request never reaches a
handler (a 503 never half-applies a write). For each request, in this order:
1. sleep `latency_ms`;
2. rate limit: at most `rate_limit` requests per key per fixed one-second window of
   `settings.clock` (the key as sent, valid or not; no key counts as one anonymous
   caller); excess gets 429 with `Retry-After` (whole seconds, >= 1);
3. error rate: draw `random.Random(settings.random_seed).random()`; below `error_rate`
   gets 503. One draw per request that passed the rate limit, so the sequence of 503s
   is a pure function of the seed.
`GET /metrics` is exempt from all of them.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
import threading
from collections.abc import Awaitable, Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from planner.controlplane.asgi import send_error
from planner.controlplane.metrics import Registry
from planner.controlplane.settings import ServerSettings

EXEMPT_PATHS = frozenset({"/metrics"})
MAX_TRACKED_KEYS = 10_000
Sleep = Callable[[float], Awaitable[None]]


def key_identity(scope: Scope) -> str:
    """A digest of the key the caller sent (X-Api-Key, else bearer), so raw keys are not held.

    Repeated auth headers with different values never get here (`identity.py`), so the
    key counted is the key auth checks."""
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    key = headers.get(b"x-api-key", b"")
    authorization = headers.get(b"authorization", b"")
    if not key and authorization[:7].lower() == b"bearer ":
        key = authorization[7:].strip()
    return hashlib.sha256(key).hexdigest()


class RateLimiter:
    """At most `limit` calls per key per one-second window (windows start on whole seconds)."""

    def __init__(self, limit: int, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.clock = clock
        self._windows: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> int | None:
        """None when the call may go ahead, else the seconds to wait (for Retry-After)."""
        now = self.clock()
        window = math.floor(now)
        with self._lock:
            start, count = self._windows.get(key, (window, 0))
            if start != window:
                start, count = window, 0
            if count >= self.limit:
                return max(1, math.ceil(start + 1 - now))
            self._windows[key] = (start, count + 1)
            if len(self._windows) > MAX_TRACKED_KEYS:  # many keys: keep only this window's
                self._windows = {k: v for k, v in self._windows.items() if v[0] == window}
            return None


class ErrorInjector:
    """503s at `rate` on the seeded stream `random.Random(seed)`."""

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self._random = random.Random(seed)
        self._lock = threading.Lock()

    def should_fail(self) -> bool:
        with self._lock:
            return self._random.random() < self.rate


class FaultMiddleware:
    """Inject the faults of `settings` before the request reaches routing."""

    def __init__(
        self,
        app: ASGIApp,
        settings: ServerSettings,
        registry: Registry | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.app = app
        self.settings = settings
        self.registry = registry or Registry()
        self.sleep = sleep
        self.limiter = RateLimiter(settings.rate_limit, settings.clock)
        self.errors = ErrorInjector(settings.error_rate, settings.random_seed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        if await self.inject(scope, send):
            return
        await self.app(scope, receive, send)

    async def inject(self, scope: Scope, send: Send) -> bool:
        """Apply the faults in order; True when a fault response was sent."""
        settings = self.settings
        if settings.latency_ms > 0:
            self.registry.faults.inc("latency")
            await self.sleep(settings.latency_ms / 1000)
        if settings.rate_limit > 0:
            retry_after = self.limiter.check(key_identity(scope))
            if retry_after is not None:
                self.registry.faults.inc("rate_limit")
                detail = f"Rate limit exceeded: at most {settings.rate_limit} requests per second."
                await send_error(send, 429, detail, {"Retry-After": str(retry_after)})
                return True
        if settings.error_rate > 0 and self.errors.should_fail():
            self.registry.faults.inc("error")
            await send_error(send, 503, "Service unavailable (injected fault).", {})
            return True
        return False
