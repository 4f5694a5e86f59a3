"""A rollback as `planner rollback` leaves it, written by hand for the held-deployment
scenarios: the server redeploys an earlier revision (the client's `redeploy`), and the
hold is written into the state through its backend (file or PostgreSQL) with
`planner.state.holds`: the record takes the live deployment's revision ids, its
revision-level values as applied (as `rolled_back_record` records them) and the hold
naming the revision rolled back to. (`tests/cli/holds/test_bad_release_hour.py` runs the
real `planner rollback` and `planner release`.)
"""

from __future__ import annotations

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment
from planner.plan.managed_fields import observed_fields
from planner.plan.paths import flatten, nest
from planner.state.backend import StateBackend
from planner.state.holds import held, released
from planner.state.records import Hold

HOLDER = "ana@laptop"
REVISION_LEVEL = ("source", "source_revision_config")  # what a revision carries
SINCE = "2026-11-23T09:53:00Z"


async def redeploy(client: ControlPlaneClient, deployment_id: str, revision_id: str) -> None:
    """The server redeploys REVISION_ID (the request `planner rollback` sends)."""
    await client.redeploy(deployment_id, revision_id)


def hold_in_state(
    backend: StateBackend, name: str, revision_id: str, live: Deployment | None = None
) -> Hold:
    """Record in BACKEND's state that NAME is held, rolled back to REVISION_ID (with LIVE's
    revision ids and revision-level values, the redeploy's, as the rollback records
    them); the hold."""
    doc = backend.read()
    assert doc is not None, "no state to hold a deployment in"
    hold = Hold(revision_id=revision_id, since=SINCE, by=HOLDER)
    recorded = doc.get(name)
    if live is not None:
        ids = {"latest_revision_id": live.latest_revision_id}
        paths = [p for p in flatten(recorded.managed) if p.split(".")[0] in REVISION_LEVEL]
        managed = flatten(recorded.managed) | observed_fields(live, paths)
        update = ids | {"active_revision_id": live.active_revision_id, "managed": nest(managed)}
        recorded = recorded.model_copy(update=update)
    doc.record(held(recorded, hold))
    backend.write(doc)
    return hold


def release_in_state(backend: StateBackend, name: str) -> None:
    """Lift NAME's hold in BACKEND's state (what `planner release` writes)."""
    doc = backend.read()
    assert doc is not None
    doc.record(released(doc, name)[0])
    backend.write(doc)
