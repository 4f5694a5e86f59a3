"""Re-keying records: `state mv` and apply's moves carry the journal; deposed addresses."""

from __future__ import annotations

from planner.state.document import IntentOp, StateDocument
from planner.state.moves import depose, deposed_address, move_recorded, successor_of
from planner.state.records import RecordedDeployment


def state_with(name: str) -> StateDocument:
    doc = StateDocument.new("http://127.0.0.1:1", None)
    doc.record(RecordedDeployment(name=name, id="d-1", managed={"name": name}, protect=True))
    return doc


def test_a_move_carries_the_journalled_operations_to_the_new_address() -> None:
    """An update intent of OLD is journalled under NEW after the move, same id and time."""
    doc = state_with("worker")
    intent = doc.add_intent(IntentOp.UPDATE, "worker", deployment_id="d-1", details={"a": 1})
    move_recorded(doc, "worker", "runner")
    (carried,) = doc.pending
    assert (carried.name, carried.op, carried.deployment_id) == ("runner", "update", "d-1")
    assert (carried.details, carried.started_at) == ({"a": 1}, intent.started_at)
    assert doc.intents_for("worker") == []


def test_a_deposed_record_names_its_successor_and_is_unprotected() -> None:
    """Deposing re-keys the record to NAME~deposed-ID, unprotected; the address maps back."""
    doc = state_with("worker")
    address = depose(doc, "worker")
    assert address == deposed_address("worker", "d-1") == "worker~deposed-d-1"
    assert list(doc.deployments) == [address] and not doc.deployments[address].protect
    assert successor_of(address) == "worker" and successor_of("worker") is None
