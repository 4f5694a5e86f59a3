"""The enums of the wire that say where a deployment or a revision is: deployment types,
deployment statuses, revision statuses, and which of them are final (importable without
the wire models; `planner.api.models` re-exports them)."""

from __future__ import annotations

from enum import StrEnum


class DeploymentType(StrEnum):
    DEV_FREE = "dev_free"
    DEV = "dev"
    PROD = "prod"
    # Newer tiers the real clients send (scale to zero); the published document predates them.
    DEV_ZERO = "dev_zero"
    DEV_FREE_ZERO = "dev_free_zero"


class DeploymentStatus(StrEnum):
    AWAITING_DATABASE = "AWAITING_DATABASE"
    READY = "READY"
    UNUSED = "UNUSED"
    AWAITING_DELETE = "AWAITING_DELETE"
    AWAITING_FINAL_DELETE = "AWAITING_FINAL_DELETE"
    UNKNOWN = "UNKNOWN"


DELETING_STATUSES = frozenset(
    {DeploymentStatus.AWAITING_DELETE, DeploymentStatus.AWAITING_FINAL_DELETE}
)


def is_being_deleted(status: str) -> bool:
    """AWAITING_DELETE, then AWAITING_FINAL_DELETE: on its way out, counted as gone."""
    return status in DELETING_STATUSES


class RevisionStatus(StrEnum):
    CREATING = "CREATING"
    QUEUED = "QUEUED"
    AWAITING_BUILD = "AWAITING_BUILD"
    BUILDING = "BUILDING"
    AWAITING_DEPLOY = "AWAITING_DEPLOY"
    DEPLOYING = "DEPLOYING"
    DEPLOYED = "DEPLOYED"
    CREATE_FAILED = "CREATE_FAILED"
    BUILD_FAILED = "BUILD_FAILED"
    DEPLOY_FAILED = "DEPLOY_FAILED"
    SKIPPED = "SKIPPED"
    INTERRUPTED = "INTERRUPTED"
    UNKNOWN = "UNKNOWN"


SUCCESS_STATUSES = frozenset({RevisionStatus.DEPLOYED, RevisionStatus.SKIPPED})
FAILURE_STATUSES = frozenset(
    {RevisionStatus.CREATE_FAILED, RevisionStatus.BUILD_FAILED, RevisionStatus.DEPLOY_FAILED}
)


def is_final_revision_status(status: str) -> bool:
    """DEPLOYED, SKIPPED and the *_FAILED statuses are final; everything else keeps polling."""
    return status in SUCCESS_STATUSES or status in FAILURE_STATUSES
