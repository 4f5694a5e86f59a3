"""The field-behaviour table: how a change to each field is applied (one table, used by
the planner and the local control plane alike).

Paths are dotted, relative to a Deployment (`source_config.resource_spec.cpu`). The class
of a path is the class of its longest prefix in the table.
"""

from __future__ import annotations

from enum import StrEnum


class ChangeClass(StrEnum):
    NO_OP = "no-op"
    IN_PLACE = "in-place"
    NEW_REVISION = "new-revision"
    IMMUTABLE = "immutable"
    READ_ONLY = "read-only"


FIELD_BEHAVIOUR: dict[str, ChangeClass] = {
    "name": ChangeClass.IMMUTABLE,
    "source": ChangeClass.IMMUTABLE,
    "source_config.integration_id": ChangeClass.IMMUTABLE,
    "source_config.repo_url": ChangeClass.IMMUTABLE,
    "source_config.deployment_type": ChangeClass.IMMUTABLE,
    "source_config.listener_id": ChangeClass.IMMUTABLE,
    "source_config.listener_config": ChangeClass.IMMUTABLE,
    "source_config.build_on_push": ChangeClass.IN_PLACE,
    "source_config.custom_url": ChangeClass.IN_PLACE,
    "source_config.resource_spec": ChangeClass.NEW_REVISION,
    "source_config.install_command": ChangeClass.NEW_REVISION,
    "source_config.build_command": ChangeClass.NEW_REVISION,
    "source_revision_config.repo_ref": ChangeClass.NEW_REVISION,
    "source_revision_config.agent_config_path": ChangeClass.NEW_REVISION,
    "source_revision_config.image_uri": ChangeClass.NEW_REVISION,
    "source_revision_config.source_tarball_path": ChangeClass.NEW_REVISION,
    "source_revision_config.repo_commit_sha": ChangeClass.READ_ONLY,
    "secrets": ChangeClass.NEW_REVISION,
    "secret_references": ChangeClass.NEW_REVISION,
    "id": ChangeClass.READ_ONLY,
    "tenant_id": ChangeClass.READ_ONLY,
    "status": ChangeClass.READ_ONLY,
    "latest_revision_id": ChangeClass.READ_ONLY,
    "active_revision_id": ChangeClass.READ_ONLY,
    "created_at": ChangeClass.READ_ONLY,
    "updated_at": ChangeClass.READ_ONLY,
    "image_version": ChangeClass.READ_ONLY,
}

# Why each class applies, for plan output ("the plan says why").
REASONS: dict[ChangeClass, str] = {
    ChangeClass.IN_PLACE: "changes in place, no new revision",
    ChangeClass.NEW_REVISION: "needs a new revision (build and deploy)",
    ChangeClass.IMMUTABLE: "cannot change after creation; re-create with --replace",
    ChangeClass.READ_ONLY: "set by the service",
    ChangeClass.NO_OP: "unchanged",
}


def classify(path: str) -> ChangeClass:
    """The change class of a dotted field path (longest table prefix wins).

    Unknown top-level paths are read-only: the planner never plans what it does not know.
    """
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        found = FIELD_BEHAVIOUR.get(".".join(parts[:end]))
        if found is not None:
            return found
    return ChangeClass.READ_ONLY
