"""Moving a record to another address (`planner state mv`, and apply carrying out a move).

The remote deployment is not touched: only the key it is recorded under changes.
"""

from __future__ import annotations

from planner.errors import StateError
from planner.state.document import StateDocument
from planner.state.records import RecordedDeployment


def move_recorded(doc: StateDocument, old: str, new: str) -> RecordedDeployment:
    """Record OLD's deployment under NEW; a StateError for an unknown OLD or a NEW that
    is already in the state (a move never overwrites a record)."""
    if new in doc.deployments:
        raise StateError(
            f"{new} is already in the state (id {doc.deployments[new].id})",
            hint=f"`planner state rm {new}` first if it should go, or pick another address",
        )
    moved = doc.get(old).model_copy(update={"name": new})
    doc.forget(old)
    doc.record(moved)
    return moved
