"""The state lock: what a holder records about itself, and the error a contender sees.

The mechanism is the backend's (an OS file lock for files); this module holds what every
backend shares: `LockInfo`, `LockHandle`, the polling loop and the messages.
"""

from __future__ import annotations

import getpass
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType

from pydantic import BaseModel, ConfigDict, Field

from planner import __version__
from planner.command_lines import suggested_command
from planner.errors import StateError, StateLockedError
from planner.state.document import iso_utc, utc_now
from planner.state.lease import DEFAULT_LEASE_SECONDS, Heartbeat

POLL_SECONDS = 0.05
# The CI run a holder belongs to, when it runs in one (first set wins).
CI_RUN_VARIABLES = ("GITHUB_RUN_ID", "CI_JOB_ID", "BUILD_ID", "CIRCLE_WORKFLOW_ID")


class LockInfo(BaseModel):
    """Who holds the lock, for the message a contender sees (Terraform's LockInfo)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    operation: str
    who: str
    host: str
    pid: int
    created: str
    version: str = __version__
    ci_run: str | None = None
    # seconds the holder may go without renewing before a contender may take over
    lease: float = DEFAULT_LEASE_SECONDS
    # which taking of the lock this is: writes of an older one are refused (fencing)
    generation: int = 0
    renewed: str | None = None  # the holder's last renewal (a file lock records it here)

    @classmethod
    def for_this_process(
        cls, operation: str, *, lease: float = DEFAULT_LEASE_SECONDS, generation: int = 0
    ) -> LockInfo:
        host = socket.gethostname()
        return cls(
            operation=operation,
            who=f"{_user_name()}@{host}",
            host=host,
            pid=os.getpid(),
            created=iso_utc(utc_now(), timespec="seconds"),
            ci_run=ci_run_from(os.environ),
            lease=lease,
            generation=generation,
        )

    def __eq__(self, other: object) -> bool:
        """The same holder and taking of the lock (a renewal does not make another one)."""
        if not isinstance(other, LockInfo):
            return NotImplemented
        return self.model_dump(exclude={"renewed"}) == other.model_dump(exclude={"renewed"})

    __hash__ = None  # type: ignore[assignment]  # mutable (renewed), like BaseModel

    def describe(self) -> list[str]:
        """Detail lines naming the holder, for error messages."""
        return [
            f"held by: {self.who} (pid {self.pid} on {self.host})",
            f"operation: {self.operation}",
            f"since: {self.created}",
            f"lease: {self.lease:g} s",
            *([f"CI run: {self.ci_run}"] if self.ci_run else []),
            f"lock id: {self.id}",
        ]


def lease_remaining(info: LockInfo) -> float:
    """Seconds until INFO's lease runs out, counted from its last renewal (else from when
    it was taken); 0 or less: run out."""
    start = datetime.fromisoformat(info.renewed or info.created)
    return (start + timedelta(seconds=info.lease) - utc_now()).total_seconds()


def ci_run_from(environ: Mapping[str, str]) -> str | None:
    """`NAME=value` of the first CI run variable set, e.g. `GITHUB_RUN_ID=123`."""
    for name in CI_RUN_VARIABLES:
        if environ.get(name):
            return f"{name}={environ[name]}"
    return None


class LockHandle:
    """A held lock; release it once (or use it as a context manager). With a HEARTBEAT,
    `check()` raises LockLostError once the lock is no longer provably this holder's."""

    def __init__(
        self,
        info: LockInfo,
        release: Callable[[], None],
        abandon: Callable[[], None] | None = None,
        heartbeat: Heartbeat | None = None,
    ) -> None:
        self.info = info
        self._release: Callable[[], None] | None = release
        self._abandon = abandon
        self.heartbeat = heartbeat.start() if heartbeat is not None else None

    @property
    def is_held(self) -> bool:
        return self._release is not None

    def check(self) -> None:
        """Raise LockLostError when the lock was lost (call it before every request);
        nothing once the lock was released."""
        if self.heartbeat is not None and self.is_held:
            self.heartbeat.check()

    def release(self) -> None:
        """Release the lock; a second call does nothing. Releasing a lock already seen
        lost does not fail (its connection may be gone): the loss was the error."""
        self._stop_heartbeat()
        release, self._release = self._release, None
        if release is None:
            return
        try:
            release()
        except StateError:
            if self.heartbeat is None or self.heartbeat.lost is None:
                raise

    def abandon(self) -> None:
        """Drop the lock as a crashed holder would: the lock frees, its info stays (tests)."""
        self._stop_heartbeat()
        abandon, self._release = self._abandon, None
        if abandon is not None:
            abandon()

    def _stop_heartbeat(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop()

    def __enter__(self) -> LockHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def acquire_polling(
    try_acquire: Callable[[], bool],
    timeout: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    on_wait: Callable[[], None] | None = None,
) -> bool:
    """Call TRY_ACQUIRE until it succeeds or TIMEOUT seconds pass (0: try once); ON_WAIT
    is called once, when the first try failed and there is time to wait."""
    deadline = clock() + max(timeout, 0.0)
    waiting = False
    while True:
        if try_acquire():
            return True
        remaining = deadline - clock()
        if remaining <= 0:
            return False
        if not waiting and on_wait is not None:
            on_wait()
        waiting = True
        sleep(min(POLL_SECONDS, remaining))


WaitNotice = Callable[[list[str]], None]


UNRECORDED_HOLDER = "held by: another process (it has not recorded who it is yet)"


def waiting_lines(source: str, holder: LockInfo | None, timeout: float) -> list[str]:
    """What a process waiting for the lock says once: for how long, and who holds it
    (`held by:` once, in the holder's lines)."""
    lines = [f"Waiting up to {timeout:g} s for the state lock ({source}):"]
    described = holder.describe() if holder is not None else [UNRECORDED_HOLDER]
    return lines + [f"  {line}" for line in described]


def wait_for_lock(
    source: str,
    try_acquire: Callable[[], bool],
    holder: Callable[[], LockInfo | None],
    timeout: float,
    on_wait: WaitNotice | None,
) -> None:
    """Take the lock with TRY_ACQUIRE within TIMEOUT seconds, telling ON_WAIT once who
    holds it (HOLDER reads the record) while waiting; StateLockedError when it stays held."""

    def waiting() -> None:
        if on_wait is not None:
            on_wait(waiting_lines(source, holder(), timeout))

    if not acquire_polling(try_acquire, timeout, on_wait=waiting):
        raise locked_error(source, holder(), timeout)


def check_unlock(source: str, lock_id: str, recorded: LockInfo | None, *, live: bool) -> LockInfo:
    """RECORDED, when `unlock LOCK_ID` may clear it: it is that lock and no live process
    holds it (LIVE: the lock is held now); else the error saying why not."""
    if live and recorded is not None and recorded.id == lock_id:
        raise held_lock_error(source, recorded)
    if live or recorded is None or recorded.id != lock_id:
        raise wrong_id_error(source, lock_id, recorded, live=live)
    return recorded


def locked_error(source: str, holder: LockInfo | None, timeout: float) -> StateLockedError:
    """The error a contender sees: the holder, since when, and the way out."""
    waited = f" (waited {timeout:g} s)" if timeout > 0 else ""
    details = [f"state: {source}{waited}"]
    if holder is None:
        details.append(UNRECORDED_HOLDER)
        return StateLockedError(
            "state is locked",
            details=details,
            hint="wait for the other planner run to finish, or pass --lock-timeout SECONDS",
        )

    def hint_for(command_args: Sequence[str]) -> str:
        unlock = suggested_command("unlock", holder.id, command_args=command_args)
        return (
            "wait for that run to finish (or pass --lock-timeout SECONDS); if it is gone "
            f"and the lock stays, release it with `{unlock}`"
        )

    return StateLockedError(
        "state is locked",
        details=details + holder.describe(),
        hint=hint_for(()),
        hint_for=hint_for,
    )


def held_lock_error(source: str, holder: LockInfo) -> StateLockedError:
    """Refusing `unlock` of a lock a live process still holds."""
    return StateLockedError(
        f"lock {holder.id} is held by a running process; not removing it",
        details=[f"state: {source}", *holder.describe()],
        hint=f"the lock is released when that process exits: wait for it, or stop it "
        f"(pid {holder.pid} on {holder.host}); `planner unlock` only clears a lock "
        "whose process has died",
    )


def wrong_id_error(
    source: str, lock_id: str, recorded: LockInfo | None, *, live: bool
) -> StateError:
    """Refusing `unlock` with an id that is not the recorded lock's."""
    if recorded is None and not live:
        return StateError(f"state {source} is not locked (no lock {lock_id})")
    if recorded is None:
        return StateError(
            f"lock id {lock_id} does not match the lock on state {source}",
            details=["held by: a running process that has not recorded who it is yet"],
            hint="the lock is released when that process exits",
        )
    if live:
        return StateError(
            f"lock id {lock_id} does not match the lock on state {source}",
            details=recorded.describe(),
            hint="that lock is held by a running process and is released when it exits",
        )

    def hint_for(command_args: Sequence[str]) -> str:
        unlock = suggested_command("unlock", recorded.id, command_args=command_args)
        return f"to clear that lock, run `{unlock}`"

    return StateError(
        f"lock id {lock_id} does not match the lock on state {source}",
        details=recorded.describe(),
        hint=hint_for(()),
        hint_for=hint_for,
    )


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry / no USER in a container
        return f"uid{os.getuid()}"
