"""Lock info, the polling loop and the messages a user sees."""

from __future__ import annotations

import os

from planner.state.locking import LockInfo, acquire_polling, ci_run_from, locked_error


def test_info_for_this_process() -> None:
    """Lock info records this pid, user@host and the operation."""
    info = LockInfo.for_this_process("state rm")
    assert info.pid == os.getpid()
    assert info.who.endswith("@" + info.host)
    assert info.operation == "state rm"


def test_polling_stops_at_deadline() -> None:
    """With a fake clock, polling tries until the timeout passes and then gives up."""
    now = [0.0]
    attempts: list[float] = []

    def try_acquire() -> bool:
        attempts.append(now[0])
        return False

    def sleep(seconds: float) -> None:
        now[0] += seconds

    assert not acquire_polling(try_acquire, 1.0, clock=lambda: now[0], sleep=sleep)
    assert attempts[0] == 0.0
    assert now[0] >= 1.0
    assert len(attempts) > 2


def test_zero_timeout_tries_once() -> None:
    """A timeout of 0 makes exactly one attempt."""
    calls: list[int] = []

    def try_acquire() -> bool:
        calls.append(1)
        return False

    assert not acquire_polling(try_acquire, 0.0, sleep=lambda _: None)
    assert calls == [1]


def test_polling_succeeds_when_freed() -> None:
    """Polling returns True as soon as an attempt succeeds."""
    results = iter([False, False, True])
    assert acquire_polling(lambda: next(results), 5.0, sleep=lambda _: None)


def test_locked_error_without_info_still_helps() -> None:
    """When the holder has not written its info yet the message still says what to do."""
    error = locked_error("s.json", None, 0)
    assert error.message == "state is locked"
    assert "--lock-timeout" in (error.hint or "")


def test_ci_run_is_recorded_and_described() -> None:
    """The first CI run variable set is recorded and shown among the holder's details."""
    assert ci_run_from({}) is None
    found = ci_run_from({"CI_JOB_ID": "77", "GITHUB_RUN_ID": "11754021"})
    assert found == "GITHUB_RUN_ID=11754021"
    info = LockInfo.for_this_process("apply").model_copy(update={"ci_run": found})
    assert "CI run: GITHUB_RUN_ID=11754021" in info.describe()
