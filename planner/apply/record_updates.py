"""How apply updates a state record: a deployment the plan leaves alone, a finished revision.

The records of an adoption, an orphan or a create or PATCH are built in
`planner.plan.record_builders`.
"""

from __future__ import annotations

from collections.abc import Mapping

from planner.config.desired import DesiredDeployment
from planner.state.records import RecordedDeployment


def rerecorded(
    desired: DesiredDeployment, previous: RecordedDeployment, secret_digests: Mapping[str, str]
) -> RecordedDeployment:
    """The record of a deployment the plan leaves alone: the config's current values
    (so released fields and accepted drift stop showing), the ids as they were, and the
    planned SECRET_DIGESTS (the values the plan saw on the server; never a value given
    only at apply time, which was not sent)."""
    return previous.model_copy(
        update={
            "managed": desired.managed(),
            "secret_digests": dict(secret_digests),
            "protect": desired.lifecycle.protect,
        }
    )


def with_revision(
    recorded: RecordedDeployment, revision_id: str, *, deployed: bool
) -> RecordedDeployment:
    """The record once a revision finished: it is the latest, and active when DEPLOYED."""
    update: dict[str, str] = {"latest_revision_id": revision_id}
    if deployed:
        update["active_revision_id"] = revision_id
    return recorded.model_copy(update=update)
