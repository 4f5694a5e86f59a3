"""Leases: the heartbeat counts a lock lost when a renewal fails or none came in time, a
file lock's holder sees its record removed, and a lost lock stops the client unsent."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.errors import LockLostError
from planner.state import LocalFileBackend
from planner.state.lease import Heartbeat, heartbeat_for
from planner.state.locking import LockHandle, LockInfo


def wait_for_loss(handle: LockHandle, seconds: float = 10.0) -> LockLostError:
    """The LockLostError HANDLE's check raises once its holder sees the loss."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            handle.check()
        except LockLostError as lost:
            return lost
        time.sleep(0.02)
    raise AssertionError("the holder never saw that its lock was lost")


def test_heartbeat_interval_is_five_seconds_or_a_third_of_the_lease() -> None:
    """The default lease of 15 s renews every 5 s; a shorter lease three times per lease."""
    assert heartbeat_for(15.0) == 5.0
    assert heartbeat_for(60.0) == 5.0
    assert heartbeat_for(0.9) == pytest.approx(0.3)


def test_a_lock_not_renewed_in_time_counts_as_lost() -> None:
    """No successful renewal for the lease minus one heartbeat: check raises, naming it."""
    now = [0.0]
    beat = Heartbeat(lambda: None, location="s.json", lease=15.0, clock=lambda: now[0])
    beat.check()
    now[0] = 9.9
    beat.check()
    now[0] = 10.1
    with pytest.raises(LockLostError, match=r"not renewed for 10\.1 s") as caught:
        beat.check()
    assert caught.value.details == ["state: s.json"]


def test_a_failed_renewal_loses_the_lock_and_stops_renewing() -> None:
    """The first renewal that raises makes the lock lost for that cause; no more tries."""
    calls: list[int] = []

    def renew() -> None:
        calls.append(1)
        raise RuntimeError("the connection is closed")

    beat = Heartbeat(renew, location="db#s", lease=0.3)
    handle = LockHandle(LockInfo.for_this_process("apply"), lambda: None, heartbeat=beat)
    lost = wait_for_loss(handle)
    assert "the state lock was lost: the connection is closed" in lost.message
    time.sleep(0.3)
    assert calls == [1]
    handle.release()  # quietly


def test_file_holder_sees_its_record_removed(tmp_path: Path) -> None:
    """A file lock whose holder record was removed is lost at the next renewal."""
    backend = LocalFileBackend(tmp_path / "s.state.json")
    handle = backend.lock("apply", lease=0.3)
    backend.file_lock.lock_info_path.unlink()
    lost = wait_for_loss(handle)
    assert "was removed or replaced" in lost.message
    handle.release()


def test_a_lost_lock_stops_every_request_unsent() -> None:
    """With the lock's check as the client's guard, a lost lock sends nothing more."""
    sent: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        return httpx2.Response(200, json={"resources": [], "offset": 0})

    async def list_with_a_lost_lock() -> None:
        transport = httpx2.MockTransport(answer)
        client = ControlPlaneClient("http://127.0.0.1:9", "key", transport=transport)
        beat = Heartbeat(lambda: None, location="s.json", lease=15.0)
        beat.lose("another process took the lock over (generation 3)")
        client.guard = beat.check
        try:
            await client.list_deployments()
        finally:
            await client.aclose()

    with pytest.raises(LockLostError, match="generation 3"):
        asyncio.run(list_with_a_lost_lock())
    assert sent == []
