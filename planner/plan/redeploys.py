"""Interrupted rollbacks: a redeploy journalled but never recorded, settled from what the
server shows.

`planner rollback` journals its redeploy (intent op `redeploy`, `redeploy_details`: the
revision rolled back to and its revision-level values, the deployment's latest revision
before, who) before it sends it, and records the hold in the write that clears the
intent once the server answered. An intent left in the state means the run died in
between; the next run that reads the state with a client (plan, apply, rollback) settles
it by what the server shows:

- the deployment's latest revision is another one, carrying the target's revision-level
  values: the redeploy happened. The record gets its hold (since: when the redeploy was
  journalled; by: who journalled it), the server's ids and those values as applied
  (`rolled_back_record`), and the run lists it as recovered (operation `redeploy`);
- anything else (its latest revision is still the one before, the record or the
  deployment is gone, or the latest revision carries other values, so something else
  changed it since): nothing the state should hold; the intent is dropped, no hold.

So no hold is ever recorded that the server does not match, and no redeploy that
happened is forgotten. DOC changes in memory only: a plan never writes it; apply and
rollback do.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from planner.api.client import ControlPlaneClient
from planner.api.errors import NotFoundError
from planner.plan.model import Recovered
from planner.plan.record_builders import rolled_back_record
from planner.plan.rollback import RollbackPlan
from planner.plan.status import revision_fields
from planner.state.document import IntentOp, PendingIntent, StateDocument
from planner.state.holds import new_hold
from planner.state.records import Hold


def redeploy_details(plan: RollbackPlan, by: str) -> dict[str, Any]:
    """What a redeploy intent journals: enough to tell later whether it happened."""
    return {
        "revision_id": plan.target.id,
        "fields": plan.fields,
        "latest_revision_id": plan.latest_revision_id,
        "by": by,
    }


def has_journalled_redeploys(doc: StateDocument) -> bool:
    """DOC's journal holds a redeploy: a run that settles it (`plan_state`) and executes
    writes the state first, so the settled intent is gone for good."""
    return any(entry.op == IntentOp.REDEPLOY for entry in doc.pending)


def hold_of(intent: PendingIntent) -> Hold:
    """The hold a redeploy intent stands for (since: when it was journalled)."""
    details = intent.details
    since = datetime.fromisoformat(intent.started_at)
    return new_hold(details["revision_id"], details["by"], since)


async def settle_interrupted_redeploys(
    client: ControlPlaneClient, doc: StateDocument
) -> list[Recovered]:
    """Settle every redeploy journalled in DOC (see the module): the ones that happened
    recorded with their hold; every one dropped from the journal. Returns what was
    recorded, as `Recovered` redeploys. No request when nothing is journalled."""
    recovered = []
    for intent in [entry for entry in doc.pending if entry.op == IntentOp.REDEPLOY]:
        if await _record_if_done(client, doc, intent):
            recovered.append(
                Recovered(
                    name=intent.name,
                    operation=IntentOp.REDEPLOY,
                    deployment_id=intent.deployment_id,
                )
            )
        doc.clear_intent(intent)
    return recovered


async def _record_if_done(
    client: ControlPlaneClient, doc: StateDocument, intent: PendingIntent
) -> bool:
    recorded = doc.deployments.get(intent.name)
    if recorded is None or recorded.id != intent.deployment_id:
        return False
    try:
        deployment = await client.get_deployment(recorded.id)
    except NotFoundError:
        return False
    latest = deployment.latest_revision_id
    if latest is None or latest == intent.details.get("latest_revision_id"):
        return False
    fields = intent.details.get("fields")
    if revision_fields(await client.get_revision(recorded.id, latest)) != fields:
        return False
    assert fields is not None
    doc.record(rolled_back_record(recorded, deployment, fields, hold_of(intent)))
    return True
