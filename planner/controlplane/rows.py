"""What the store holds, as plain values (JSON columns already decoded).

Timestamps are epoch seconds from `ServerSettings.clock`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple


@dataclass
class DeploymentRow:
    id: str
    tenant_id: str
    name: str
    source: str
    source_config: dict[str, Any]
    source_revision_config: dict[str, Any]
    secrets: list[dict[str, Any]]
    secret_references: list[dict[str, Any]]
    image_version: str | None
    latest_revision_id: str | None
    created_at: float
    updated_at: float
    ready_at: float
    delete_at: float | None = None
    display_name: str | None = None


class StoredDeployment(NamedTuple):
    """A deployment as its row holds it, JSON columns as their stored text (compact,
    ASCII): what a view writes into a response without decoding it."""

    id: str
    tenant_id: str
    name: str
    display_name: str | None
    source: str
    source_config: str
    source_revision_config: str
    secrets: str
    secret_references: str
    image_version: str | None
    latest_revision_id: str | None
    created_at: float
    updated_at: float
    ready_at: float
    delete_at: float | None


@dataclass
class RevisionRow:
    id: str
    deployment_id: str
    seq: int
    source: str
    source_revision_config: dict[str, Any]
    created_at: float
    build_seconds: float
    deploy_seconds: float
    skipped_at: float | None = None


class RevisionSummary(NamedTuple):
    """What a deployment's view reads of one of its revisions: its timing (a
    `lifecycle.Timed`), the part of its config its status reads
    (`lifecycle.status_config`), and its commit."""

    id: str
    source: str
    source_revision_config: Mapping[str, Any]
    created_at: float
    build_seconds: float
    deploy_seconds: float
    skipped_at: float | None
    repo_commit_sha: Any

    @classmethod
    def of(cls, revision: RevisionRow) -> RevisionSummary:
        config = revision.source_revision_config
        return cls(
            revision.id,
            revision.source,
            config,
            revision.created_at,
            revision.build_seconds,
            revision.deploy_seconds,
            revision.skipped_at,
            config.get("repo_commit_sha"),
        )


@dataclass
class UploadRow:
    """A source tarball upload slot (`POST .../upload-url`), filled by the PUT to its URL.

    Only a digest of the URL's token is kept."""

    id: str
    object_path: str
    tenant_id: str
    deployment_id: str
    token_sha256: str
    created_at: float
    expires_at: float
    size: int | None = None
    sha256: str | None = None
    uploaded_at: float | None = None


@dataclass
class ListenerRow:
    """A listener of one workspace; a deleted one is kept (DELETED_AT set) so the seed
    data does not bring it back when the server starts again."""

    id: str
    tenant_id: str
    compute_type: str
    compute_id: str
    compute_config: dict[str, Any]
    version: str | None
    created_at: float
    updated_at: float
    deleted_at: float | None = None


@dataclass
class TracingProjectRow:
    id: str
    tenant_id: str
    deployment_id: str
    name: str
    created_at: float


@dataclass
class DeploymentFilter:
    """Filters of `GET /v2/deployments`, already parsed; None = not filtered."""

    name_contains: str | None = None
    status: str | None = None
    image_version: str | None = None
    deployment_type: str | None = None
    deployment_ids: list[str] | None = None
    match_nothing: bool = False  # e.g. remote_reconciled=true: none of ours is
