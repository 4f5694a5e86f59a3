"""`planner release NAME`'s engine: lift a rollback's hold, through the state's writer.

The hold is lifted (and whatever an interrupted rollback of NAME left journalled is
dropped: releasing means the config manages it again, whether that rollback happened or
not) in one commit of apply's `StateRecorder`, appended to the operation log, then folded
into a version. Nothing is sent to the control plane. A kill -9 at any point leaves the
hold or its release, never half of one: the next run reads one or the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.apply.recorder import StateRecorder
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, StateDocument
from planner.state.holds import released
from planner.state.records import Hold


@dataclass(frozen=True)
class Released:
    """What a release did: the hold it lifted (None: there was only an interrupted
    rollback's journal entry), and how many such entries it dropped."""

    name: str
    hold: Hold | None
    dropped: int = 0


async def release_hold(backend: StateBackend, doc: StateDocument, name: str) -> Released:
    """Lift NAME's hold in DOC (read under the lock of BACKEND) and write it; a StateError
    when NAME is not managed, or neither held nor left by an interrupted rollback."""
    recorder = StateRecorder(backend, doc)
    interrupted = [i for i in doc.intents_for(name) if i.op == IntentOp.REDEPLOY]
    hold = None
    if not interrupted or doc.get(name).held is not None:
        record, hold = released(doc, name)
        doc.record(record)
    for intent in interrupted:
        doc.clear_intent(intent)
    await recorder.commit()
    await recorder.flush()
    return Released(name, hold, len(interrupted))
