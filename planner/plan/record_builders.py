"""Every way a new state record (`RecordedDeployment`) is built, in one place (apply's
updates of an existing one: `planner.apply.record_updates`).

- `observed_record`: adopting a live deployment (import, a create an interrupted apply
  never recorded): the OBSERVED values of the fields the config sets.
- `orphan_record`: a deployment an interrupted apply created that has left the config
  since: ids only, so the next plan deletes it.
- `recorded_from`: after a create or PATCH: the config's values, the server's ids.
- `rolled_back_record`: after a rollback's redeploy: held, the redeployed revision's
  values recorded as applied.
Secrets are recorded only as keyed digests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.managed_fields import desired_fields, observed_doc, observed_secrets
from planner.plan.paths import flatten, get_path, nest
from planner.secrets import secret_digest
from planner.state.document import iso_utc
from planner.state.records import Hold, RecordedDeployment


def revision_fields(deployment: Deployment) -> dict[str, Any]:
    """The ids and timestamp a record keeps to tell later whether the deployment moved."""
    return {
        "latest_revision_id": deployment.latest_revision_id,
        "active_revision_id": deployment.active_revision_id,
        "updated_at": iso_utc(deployment.updated_at),
    }


def observed_record(
    desired: DesiredDeployment, deployment: Deployment, key: bytes
) -> RecordedDeployment:
    """What the state records when adopting DEPLOYMENT as DESIRED (import, lost creates).

    `managed` holds the OBSERVED values of the fields the config sets, so the next plan
    shows no drift and the real difference with the config. When the config sets secrets,
    the digests of every observed secret are recorded (the list is managed whole).
    """
    doc = observed_doc(deployment)
    managed = nest({path: get_path(doc, path) for path in desired_fields(desired)})
    digests: dict[str, str] = {}
    if desired.secrets:
        values = observed_secrets(deployment)
        digests = {name: secret_digest(key, name, value) for name, value in values.items()}
    return RecordedDeployment(
        name=desired.name,
        id=deployment.id,
        managed=managed,
        secret_digests=digests,
        protect=desired.lifecycle.protect,
        **revision_fields(deployment),
    )


def orphan_record(name: str, deployment: Deployment) -> RecordedDeployment:
    """The record of DEPLOYMENT under NAME, which no config declares: ids only."""
    return RecordedDeployment(name=name, id=deployment.id, **revision_fields(deployment))


def recorded_from(
    desired: DesiredDeployment, deployment: Deployment, secret_digests: Mapping[str, str]
) -> RecordedDeployment:
    """The record after a create or PATCH: the config's values, the server's ids, and the
    planned SECRET_DIGESTS (of the values sent, or of those the plan saw on the server)."""
    return RecordedDeployment(
        name=desired.name,
        id=deployment.id,
        managed=desired.managed(),
        secret_digests=dict(secret_digests),
        protect=desired.lifecycle.protect,
        **revision_fields(deployment),
    )


def rolled_back_record(
    recorded: RecordedDeployment, deployment: Deployment, fields: Mapping[str, Any], hold: Hold
) -> RecordedDeployment:
    """The record after a rollback redeployed a revision whose revision-level values are
    FIELDS (flat paths): held by HOLD, the server's ids, and those values recorded as
    applied where the config manages them (so, once released, the plan shows the config's
    change back, not drift)."""
    managed = flatten(recorded.managed)
    managed.update({path: fields[path] for path in managed if path in fields})
    return recorded.model_copy(
        update={**revision_fields(deployment), "managed": nest(managed), "held": hold}
    )
