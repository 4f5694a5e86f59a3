"""Moving a record to another address (`planner state mv`, apply carrying out a move, and
create before destroy deposing the deployment it replaces).

The remote deployment is not touched: only the key it is recorded under changes.

A deposed record (`worker~deposed-<id>`) is the old deployment of a create-before-destroy
replace: the new one takes the address, the old one stays recorded under a derived address
until its delete succeeded, so no deployment is ever running without a record. A config
address cannot contain `~`, so a derived address never meets one of the config's; with the
config no longer declaring it, every plan deletes it.
"""

from __future__ import annotations

from datetime import datetime

from planner.command_lines import suggested_command
from planner.errors import StateError
from planner.state.document import StateDocument
from planner.state.records import RecordedDeployment

DEPOSED = "~deposed-"


def move_recorded(doc: StateDocument, old: str, new: str) -> RecordedDeployment:
    """Record OLD's deployment under NEW, and journal OLD's unfinished operations (an
    interrupted apply's intents) under NEW too, so the next plan still recovers them
    rather than calling them drift; a StateError for an unknown OLD or a NEW that is
    already in the state (a move never overwrites a record)."""
    if new in doc.deployments:
        raise StateError(
            f"{new} is already in the state (id {doc.deployments[new].id})",
            hint=f"`{suggested_command('state rm', new)}` first if it should go, or pick another "
            "address",
        )
    moved = doc.get(old).model_copy(update={"name": new})
    doc.forget(old)
    doc.record(moved)
    move_intents(doc, old, new)
    return moved


def move_intents(doc: StateDocument, old: str, new: str) -> int:
    """Journal OLD's unfinished operations under NEW (same operation, deployment id,
    details and start time), so the next run recovers them at the address that records
    that deployment now; how many moved."""
    moved = doc.intents_for(old)
    for intent in moved:
        doc.clear_intent(intent)
        doc.add_intent(
            intent.op,
            new,
            deployment_id=intent.deployment_id,
            details=intent.details,
            now=datetime.fromisoformat(intent.started_at),
        )
    return len(moved)


def deposed_address(name: str, deployment_id: str) -> str:
    """The derived address the old deployment of NAME's create-before-destroy replace is
    recorded under until it is deleted."""
    return f"{name}{DEPOSED}{deployment_id}"


def successor_of(address: str) -> str | None:
    """The address that replaced a deposed ADDRESS (None: ADDRESS is not deposed)."""
    name, found, _ = address.partition(DEPOSED)
    return name if found else None


def depose(doc: StateDocument, name: str) -> str:
    """Re-key NAME's record to its deposed address (unprotected: it is to be deleted);
    the deposed address."""
    recorded = doc.get(name)
    address = deposed_address(name, recorded.id)
    doc.forget(name)
    doc.record(recorded.model_copy(update={"name": address, "protect": False}))
    return address
