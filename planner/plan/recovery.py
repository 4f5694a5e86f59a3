"""Recovery: the planner's own operations an interrupted apply never recorded, told apart
from drift.

Apply journals an intent before it sends a create, a PATCH or a delete, and clears it
when the answer is recorded; an intent left in the state means the run died in between.
A difference between the record and the server that such an intent explains (an update
intent whose values are what the server now holds, a delete intent for a deployment that
is gone) is `Recovered`, not `Drift`: nobody changed anything outside the planner.

A journalled create whose deployment exists (`Observed.pending_found`) is adopted by
`adopt_interrupted_creates`, the one rule plan, apply and import share: recorded with its
observed values (or ids only when it left the config, so the plan deletes it) and listed
in the plan's `recovered` (operation create).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.managed_fields import observed_secrets
from planner.plan.model import Change, Drift, Plan, Recovered
from planner.plan.paths import normalize
from planner.plan.record_builders import observed_record, orphan_record
from planner.secrets import secret_digest
from planner.state.document import IntentOp, PendingIntent, StateDocument

SECRETS_PREFIX = "secrets."


def update_intent_details(change: Change) -> dict[str, Any]:
    """What an update intent journals: the values the PATCH sets (secrets as digests)."""
    fields = {f.path: f.after for f in change.fields if not f.path.startswith(SECRETS_PREFIX)}
    digests = dict(change.secret_digests) if change.send_secrets else {}
    return {"fields": fields, "sends_secrets": change.send_secrets, "secret_digests": digests}


def adopt_interrupted_creates(
    doc: StateDocument,
    found: Mapping[str, Deployment],
    desired: Mapping[str, DesiredDeployment],
    key: bytes,
) -> list[Recovered]:
    """Record in DOC what an interrupted apply created but never recorded (FOUND: its
    journalled creates that exist), so it is neither created twice nor forgotten, and
    drop the journalled creates. DOC changes in memory only: a plan never writes it,
    apply and import do. Returns what was adopted, as `Recovered` creates."""
    for name, deployment in sorted(found.items()):
        wanted = desired.get(name)
        if wanted is None:  # left the config since: recorded so that the plan deletes it
            doc.record(orphan_record(name, deployment))
        else:
            doc.record(observed_record(wanted, deployment, key))
    for intent in [i for i in doc.pending if i.op == IntentOp.CREATE]:
        doc.clear_intent(intent)
    return [
        Recovered(name=name, operation=IntentOp.CREATE, deployment_id=deployment.id)
        for name, deployment in sorted(found.items())
    ]


def with_recovered(plan: Plan, adopted: list[Recovered]) -> Plan:
    """PLAN, listing ADOPTED (`adopt_interrupted_creates`) among its `recovered`."""
    if not adopted:
        return plan
    recovered = sorted([*plan.recovered, *adopted], key=lambda r: (r.name, r.operation))
    return plan.model_copy(update={"recovered": recovered})


def split_recovered(
    drift: list[Drift],
    intents: Iterable[PendingIntent],
    observed: Deployment | None,
    key: bytes,
) -> tuple[list[Drift], list[Recovered]]:
    """DRIFT of one deployment, less what its pending INTENTS explain (returned as
    Recovered, one per intent that explains something)."""
    left, recovered = list(drift), []
    for intent in intents:
        explained = [d for d in left if _explains(intent, d, observed, key)]
        if not explained:
            continue
        left = [d for d in left if d not in explained]
        paths = sorted(d.path for d in explained if d.path is not None)
        recovered.append(
            Recovered(
                name=intent.name,
                operation=IntentOp(intent.op),
                deployment_id=intent.deployment_id,
                paths=paths,
            )
        )
    return left, recovered


def _explains(intent: PendingIntent, drift: Drift, observed: Deployment | None, key: bytes) -> bool:
    if intent.op == IntentOp.DELETE:
        return drift.path is None and observed is None
    if intent.op != IntentOp.UPDATE or drift.path is None or observed is None:
        return False
    if drift.path.startswith(SECRETS_PREFIX):
        name = drift.path.removeprefix(SECRETS_PREFIX)
        if not intent.details.get("sends_secrets"):
            return False
        digests = intent.details.get("secret_digests") or {}
        value = observed_secrets(observed).get(name)
        seen = None if value is None else secret_digest(key, name, value)
        return digests.get(name) == seen
    fields = intent.details.get("fields") or {}
    return drift.path in fields and normalize(fields[drift.path]) == normalize(drift.observed)
