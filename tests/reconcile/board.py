"""A status board filled the way the reconcile loop fills it, for the status tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from planner.reconcile.status import CycleRecord, DeploymentRow, StatusBoard
from planner.render.markdown import render_markdown
from tests.plan.builders import rich_plan

STARTED = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)


def cycle(result: str = "ok", *, minute: int = 0, **fields: object) -> CycleRecord:
    values: dict[str, object] = {
        "started_at": STARTED + timedelta(minutes=minute),
        "duration_s": 1.5,
        "mode": "heal",
        "result": result,
        "drifted": 0,
        "pending": 0,
        "changed": 0,
        "message": f"cycle {minute}: {result}",
    }
    return CycleRecord(**(values | fields))  # type: ignore[arg-type]


def row(address: str = "api", **fields: object) -> DeploymentRow:
    values: dict[str, object] = {
        "address": address,
        "remote_name": f"{address}-prod",
        "health": "healthy",
        "drifted": False,
        "last_change": None,
        "last_change_at": None,
    }
    return DeploymentRow(**(values | fields))  # type: ignore[arg-type]


def filled_board() -> StatusBoard:
    """A leader that healed one drifted deployment, with a failed and a healthy one beside."""
    board = StatusBoard()
    board.set_leader("reconcile-0 (pid 7)", True)
    board.record_cycle(cycle("drift", minute=0, drifted=1, pending=1))
    board.record_cycle(cycle("healed", minute=5, drifted=1, pending=0, changed=1))
    board.set_deployments(
        [
            row("api", drifted=True, last_change="update (drift reverted)", last_change_at=STARTED),
            row("worker", health="failed"),
            row("web", health="rolling out"),
        ]
    )
    board.set_last_plan(render_markdown(rich_plan()))
    board.set_ready(True)
    return board
