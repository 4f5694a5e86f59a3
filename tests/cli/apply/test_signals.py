"""SIGINT and SIGTERM in a run: wind down first, stop at once the second time."""

from __future__ import annotations

import asyncio
import os
import signal
import threading

import pytest

from planner.cli.exits import Interrupted
from planner.cli.main import main
from planner.cli.signals import StopSignals

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signal handlers need the main thread",
)


def test_a_first_signal_while_executing_sets_stop_and_a_second_cancels() -> None:
    """While executing, a first SIGTERM sets the stop event and is heard by the view;
    a second signal (SIGINT here) cancels the run, which leaves as Interrupted with the
    first signal's exit code, 143."""
    heard: list[int] = []

    async def run() -> None:
        signals = StopSignals(heard.append)
        with signals.installed():
            stop = asyncio.Event()
            with signals.executing(stop):
                os.kill(os.getpid(), signal.SIGTERM)
                await asyncio.wait_for(stop.wait(), 5)
                assert signals.exit_code == 143
                os.kill(os.getpid(), signal.SIGINT)
                await asyncio.sleep(5)

    with pytest.raises(Interrupted) as stopped:
        asyncio.run(run())
    assert stopped.value.exit_code == 143
    assert heard == [signal.SIGTERM]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_before_executing_stops_at_once(signum: int, code: int) -> None:
    """Before the plan executes (nothing sent yet) one signal cancels the run at once."""

    async def run() -> None:
        with StopSignals(lambda _: None).installed():
            os.kill(os.getpid(), signum)
            await asyncio.sleep(5)

    with pytest.raises(Interrupted) as stopped:
        asyncio.run(run())
    assert stopped.value.exit_code == code


def test_the_handlers_are_removed_after_the_run() -> None:
    """After the run SIGTERM has its default handler again and SIGINT raises
    KeyboardInterrupt (nothing of the run's stays installed)."""

    async def run() -> None:
        with StopSignals(lambda _: None).installed():
            pass

    asyncio.run(run())
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) == signal.default_int_handler


def test_the_boundary_exits_with_the_signal_s_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """`main` maps Interrupted to its exit code (143 for SIGTERM) and says so on stderr."""

    def terminated(args: object) -> int:
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr("planner.cli.run.validate.run", terminated)
    assert main(["validate"]) == 143
