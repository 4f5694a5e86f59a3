"""SIGINT and SIGTERM during `apply` and `destroy`: the first winds down, a second stops.

While the plan executes, the first signal (Ctrl-C, or the SIGTERM of a cancelled CI job)
sets the run's `stop`: nothing new is sent, requests in flight finish and are recorded,
the state is written, the lock released and the summary printed; the exit code is 130
for SIGINT, 143 for SIGTERM. A second signal (either) cancels at once: the journal
covers what was cut off, as after a `kill -9`. Before the execution starts (refresh,
plan, prompt) nothing was sent, so a signal stops at once.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

from planner.cli.exits import EXIT_INTERRUPTED, Interrupted, exit_code_for

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """The signal handling of one run; `on_stopping(signum)` hears a first signal that
    winds the execution down."""

    def __init__(self, on_stopping: Callable[[int], None]) -> None:
        self.received: int | None = None
        self._on_stopping = on_stopping
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[object] | None = None

    @property
    def exit_code(self) -> int:
        """Of a run the first signal wound down (130 when none came: stopped otherwise)."""
        return EXIT_INTERRUPTED if self.received is None else exit_code_for(self.received)

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Handle both signals in the running loop; a cancellation they caused leaves as
        `Interrupted` (the error boundary exits 130 or 143)."""
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        try:
            for signum in SIGNALS:
                loop.add_signal_handler(signum, self._on_signal, signum)
        except (NotImplementedError, RuntimeError):  # not the main thread: the defaults
            yield
            return
        try:
            yield
        except asyncio.CancelledError:
            if self.received is None:
                raise
            raise Interrupted(self.received) from None
        finally:
            for signum in SIGNALS:
                loop.remove_signal_handler(signum)

    @contextmanager
    def executing(self, stop: asyncio.Event) -> Iterator[None]:
        """While the plan executes, a first signal sets STOP instead of cancelling."""
        self._stop = stop
        try:
            yield
        finally:
            self._stop = None

    def _on_signal(self, signum: int) -> None:
        if self.received is None:
            self.received = signum
        if self._stop is None or self._stop.is_set():
            if self._task is not None:
                self._task.cancel()
            return
        self._stop.set()
        self._on_stopping(signum)


def raise_terminated(signum: int, frame: FrameType | None) -> NoReturn:
    """A plain signal handler: SIGTERM where the loop cannot see it (a blocking prompt)."""
    raise Interrupted(signum)
