"""A rollback as `planner rollback` leaves it, for the held-deployment scenarios: the
server redeploys an earlier revision (its redeploy route), the state records the hold.

The hold is written into the state through its backend (file or PostgreSQL), as any
writer of the state does: the record takes the live deployment's revision ids and the
hold (`RecordedDeployment.held`) naming the revision rolled back to.
"""

from __future__ import annotations

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment
from planner.state.backend import StateBackend
from planner.state.records import Hold

HOLDER = "ana@laptop"
SINCE = "2026-11-23T09:53:00Z"


async def redeploy(client: ControlPlaneClient, deployment_id: str, revision_id: str) -> None:
    """POST the redeploy of REVISION_ID (the route the rollback uses; the client's own call
    comes with `planner rollback`)."""
    path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"
    await client._send("POST", path)


def hold_in_state(
    backend: StateBackend, name: str, revision_id: str, live: Deployment | None = None
) -> Hold:
    """Record in BACKEND's state that NAME is held, rolled back to REVISION_ID (with LIVE's
    revision ids, the redeploy's, as the rollback records them); the hold."""
    doc = backend.read()
    assert doc is not None, "no state to hold a deployment in"
    hold = Hold(revision_id=revision_id, since=SINCE, by=HOLDER)
    update: dict[str, object] = {"held": hold}
    if live is not None:
        update |= {
            "latest_revision_id": live.latest_revision_id,
            "active_revision_id": live.active_revision_id,
        }
    doc.record(doc.get(name).model_copy(update=update))
    backend.write(doc)
    return hold


def release_in_state(backend: StateBackend, name: str) -> None:
    """Lift NAME's hold in BACKEND's state (what `planner release` writes)."""
    doc = backend.read()
    assert doc is not None
    doc.record(doc.get(name).model_copy(update={"held": None}))
    backend.write(doc)
