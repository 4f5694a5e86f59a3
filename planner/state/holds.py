"""Holds: a rollback's pin on one record, set by `planner rollback`, lifted by `planner
release` (`RecordedDeployment.held`, a `Hold`).

A hold changes the state only: the functions here return the record to write (through
the caller's writer, so the change goes through the operation log like any record).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from planner.command_lines import suggested_command
from planner.errors import StateError
from planner.state.document import StateDocument, iso_utc
from planner.state.records import Hold, RecordedDeployment


def new_hold(revision_id: str, by: str, now: datetime) -> Hold:
    """The hold of a rollback to REVISION_ID, set by BY (the lock's `who`) at NOW."""
    return Hold(revision_id=revision_id, since=iso_utc(now, timespec="seconds"), by=by)


def held(recorded: RecordedDeployment, hold: Hold) -> RecordedDeployment:
    """RECORDED, held by HOLD (any earlier hold replaced)."""
    return recorded.model_copy(update={"held": hold})


def released(doc: StateDocument, name: str) -> tuple[RecordedDeployment, Hold]:
    """NAME's record without its hold, and the hold it had; a StateError naming NAME when
    the state does not manage it (the known names listed) or it is not held."""
    recorded = doc.get(name)
    if recorded.held is None:
        raise StateError(
            f"{name} is not held: there is no rollback to release",
            hint=_rollback_hint(name, ()),
            hint_for=lambda args: _rollback_hint(name, args),
        )
    return recorded.model_copy(update={"held": None}), recorded.held


def _rollback_hint(name: str, args: Sequence[str]) -> str:
    command = suggested_command("rollback", name, command_args=args)
    return f"`{command}` redeploys an earlier revision and holds it there"
