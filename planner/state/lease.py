"""Leases: a lock holder proves, every few seconds, that it still holds the lock.

- `Heartbeat` renews the lock on a thread of its own every `every` seconds (the
  backend's `renew` checks the lock is still this holder's and records the renewal).
  Once a renewal fails, or none has succeeded for `lease - every` seconds (a stalled
  process), the lock counts as lost: `check()` raises LockLostError, and the holder
  sends nothing more.
- A process that takes over a lock whose holder vanished without releasing it waits,
  before it does anything, until that holder's lease (recorded with the lock, from its
  last renewal) has run out (`wait_out_lease`): by then the old holder has seen its loss
  (it checks before every request) and stopped.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from planner.errors import LockLostError

DEFAULT_LEASE_SECONDS = 15.0
DEFAULT_HEARTBEAT_SECONDS = 5.0


def heartbeat_for(lease: float) -> float:
    """The renewal interval of LEASE: every 5 s, or a third of a shorter lease."""
    return min(DEFAULT_HEARTBEAT_SECONDS, lease / 3)


class Heartbeat:
    """Renews a held lock every EVERY seconds with RENEW (raising: the lock is lost)."""

    def __init__(
        self,
        renew: Callable[[], None],
        *,
        location: str,
        lease: float,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._renew = renew
        self._location = location
        self.every = heartbeat_for(lease) if every is None else every
        self._stale_after = max(lease - self.every, self.every)
        self._clock = clock
        self._last = clock()
        self._stopped = threading.Event()
        self.lost: str | None = None
        self._thread = threading.Thread(target=self._run, name="planner-lock-lease", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        """No more renewals (before the lock is released or dropped)."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def lose(self, cause: str) -> None:
        """Count the lock as lost for CAUSE (the first cause stays)."""
        if self.lost is None:
            self.lost = cause

    def check(self) -> None:
        """Raise LockLostError when the lock is lost (or has not been renewed in time)."""
        silent = self._clock() - self._last
        if self.lost is None and silent > self._stale_after:
            self.lose(f"it was not renewed for {silent:.1f} s (the lease is running out)")
        if self.lost is not None:
            raise lock_lost_error(self._location, self.lost)

    def _run(self) -> None:
        while not self._stopped.wait(self.every):
            try:
                self._renew()
            except Exception as error:  # any failure to renew: the lock is not provably ours
                self.lose(str(error) or type(error).__name__)
                return
            self._last = self._clock()


def lock_lost_error(location: str, cause: str) -> LockLostError:
    return LockLostError(
        f"the state lock was lost: {cause}",
        details=[f"state: {location}"],
        hint="nothing more was sent after the loss was seen, and the state records what was "
        "done; run `planner plan` to see where things stand, then apply again",
    )


def fenced_error(location: str, mine: int, current: int) -> LockLostError:
    """The store refusing a write of lock generation MINE: CURRENT has taken the lock."""
    return LockLostError(
        f"the state refused a write of lock generation {mine}: the lock was taken over "
        f"(generation {current} holds it now)",
        details=[f"state: {location}"],
        hint="this run lost the lock and stopped; run `planner plan` to see where things stand",
    )


def wait_out_lease(
    remaining: float,
    notice: Callable[[float], None] | None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Wait REMAINING seconds of a vanished holder's lease (telling NOTICE once first)."""
    if remaining <= 0:
        return
    if notice is not None:
        notice(remaining)
    sleep(remaining)


def takeover_lines(source: str, remaining: float, holder_lines: list[str]) -> list[str]:
    """What a process taking over a lock its holder never released says while it waits."""
    head = (
        f"Waiting {remaining:.1f} s for the lease of a holder that stopped without releasing "
        f"the state lock ({source}) to run out:"
    )
    return [head, *(f"  {line}" for line in holder_lines)]
