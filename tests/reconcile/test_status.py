"""The status board: what the loop publishes, read whole from other threads."""

from __future__ import annotations

import threading

from planner.reconcile.status import KEPT_CYCLES, StatusBoard, StatusSnapshot
from tests.reconcile.board import cycle, row


def test_an_empty_board_is_not_ready_and_has_no_leader() -> None:
    """Before the loop says anything: no leader, no cycle, not ready."""
    snapshot = StatusBoard().snapshot()
    assert snapshot == StatusSnapshot()
    assert snapshot.last_cycle is None and not snapshot.ready


def test_the_board_keeps_the_last_cycles_newest_first() -> None:
    """Only the last KEPT_CYCLES cycles stay, the newest first."""
    board = StatusBoard()
    for minute in range(KEPT_CYCLES + 7):
        board.record_cycle(cycle(minute=minute))
    cycles = board.snapshot().cycles
    assert len(cycles) == KEPT_CYCLES
    assert cycles[0].message == f"cycle {KEPT_CYCLES + 6}: ok"
    assert cycles[-1].message == "cycle 7: ok"


def test_each_setter_changes_its_part_and_tells_the_listeners() -> None:
    """Leader, deployments, plan and readiness land in the snapshot; listeners hear each."""
    board = StatusBoard()
    heard: list[tuple[str, StatusSnapshot]] = []
    board.add_listener(lambda what, snapshot: heard.append((what, snapshot)))
    board.set_leader("a (pid 1)", False)
    board.set_deployments([row("api")])
    board.set_last_plan("**No changes.**")
    board.record_cycle(cycle("standby"))
    board.set_ready(True)
    snapshot = board.snapshot()
    assert (snapshot.leader_holder, snapshot.is_leader, snapshot.ready) == (
        "a (pid 1)",
        False,
        True,
    )
    assert snapshot.deployments == (row("api"),) and snapshot.last_plan == "**No changes.**"
    assert [what for what, _ in heard] == ["leader", "deployments", "last_plan", "cycle", "ready"]
    assert heard[-1][1] is snapshot


def test_readers_on_other_threads_see_whole_snapshots() -> None:
    """A snapshot taken while another thread records always has its cycles counted whole."""
    board = StatusBoard()
    seen: list[int] = []

    def record() -> None:
        for minute in range(400):
            board.record_cycle(cycle(minute=minute))
            board.set_deployments([row(f"d{minute}")])

    writer = threading.Thread(target=record)
    writer.start()
    while writer.is_alive():
        snapshot = board.snapshot()
        seen.append(len(snapshot.cycles))
    writer.join()
    assert seen == sorted(seen) and board.snapshot().cycles[0].message == "cycle 399: ok"
