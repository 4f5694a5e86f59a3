"""What every operation of one apply shares: client, state, config, limits, reporting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

from planner.api.client import ControlPlaneClient
from planner.apply.defaults import DEFAULT_PARALLELISM as DEFAULT_PARALLELISM  # re-exported
from planner.apply.poller import Poller
from planner.apply.recorder import StateRecorder
from planner.apply.reporter import Reporter
from planner.apply.results import DeploymentResult, Outcome
from planner.apply.waiter import PollPolicy, Waiting
from planner.config.desired import DesiredDeployment
from planner.errors import ApiError, PlannerError

T = TypeVar("T")

DEFAULT_WAIT_TIMEOUT = 1800.0
DEFAULT_INTERRUPT_GRACE = 10.0

# The deployment the current task works on (each operation runs in its own task), so a
# retry or pause heard from the shared client can name it.
working_on: ContextVar[str | None] = ContextVar("working_on", default=None)


@dataclass(frozen=True)
class ApplyOptions:
    """How to apply: `parallelism` requests at once; wait for revisions (up to
    `wait_timeout` s each) unless `wait` is False; after a stop, in-flight requests get
    `interrupt_grace` s to finish before they are cancelled."""

    parallelism: int = DEFAULT_PARALLELISM
    wait: bool = True
    wait_timeout: float = DEFAULT_WAIT_TIMEOUT
    poll: PollPolicy = field(default_factory=PollPolicy)
    interrupt_grace: float = DEFAULT_INTERRUPT_GRACE
    clock: Callable[[], float] = time.monotonic


@dataclass
class Run:
    """One apply in progress (the executor builds it; operations use it)."""

    client: ControlPlaneClient
    recorder: StateRecorder
    desired: Mapping[str, DesiredDeployment]
    digest_key: bytes
    options: ApplyOptions
    reporter: Reporter
    stop: asyncio.Event
    results: dict[str, DeploymentResult]
    limiter: asyncio.Semaphore = field(init=False)
    waiting: Waiting = field(init=False)
    poller: Poller = field(init=False)

    def __post_init__(self) -> None:
        self.limiter = asyncio.Semaphore(self.options.parallelism)
        self.waiting = Waiting(
            client=self.client,
            limiter=self.limiter,
            stop=self.stop,
            policy=self.options.poll,
            timeout=self.options.wait_timeout,
            clock=self.options.clock,
        )
        self.poller = Poller(self.waiting)

    async def request(self, send: Callable[[], Awaitable[T]]) -> T:
        """One API call (with the client's retries) inside a slot of the limiter."""
        async with self.limiter:
            return await send()

    async def submit(self, send: Callable[[], Awaitable[T]]) -> T | None:
        """Like `request`, but only if the apply was not told to stop meanwhile (None):
        a stop keeps new work from being sent, whenever its slot comes free."""
        async with self.limiter:
            if self.stop.is_set():
                return None
            return await send()

    def begin(self, result: DeploymentResult, status: str) -> None:
        if result.started is None:
            result.started = self.options.clock()
        self.status(result, status)

    def status(self, result: DeploymentResult, status: str) -> None:
        result.status = status
        self.reporter.update(result)

    def finish(
        self,
        result: DeploymentResult,
        outcome: Outcome,
        status: str | None = None,
        error: str | None = None,
    ) -> None:
        result.outcome = outcome
        result.error = error
        if result.started is not None:
            result.seconds = self.options.clock() - result.started
        self.status(result, status or result.status)

    def fail(self, result: DeploymentResult, error: BaseException | str) -> None:
        self.finish(result, Outcome.FAILED, Outcome.FAILED.value, describe_error(error))


def describe_error(error: BaseException | str) -> str:
    """One line: the message, and for API errors the first detail lines."""
    if isinstance(error, str):
        return error
    if isinstance(error, ApiError):
        extra = [d for d in error.details if d != error.gave_up][:3]
        return f"{error.message} ({'; '.join(extra)})" if extra else error.message
    if isinstance(error, PlannerError):
        return error.message
    # Not the message: a validation error can quote the values it was given (secrets).
    return f"internal error: {type(error).__name__}"
