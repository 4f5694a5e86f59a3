"""The sandbox side of the official clients' deploy flows (no HTTP here).

- Push tokens: credentials for a sandbox registry that nothing serves; an
  `internal_docker` deployment's client gets `{token, registry, ...}` and then names the
  image it pushed elsewhere in a PATCH, as it would against the real service.
- Uploads: an `internal_source` deployment gets a one-time URL on this server (a
  random token in the query, only its digest stored) and the `object_path` a revision
  names in `source_tarball_path`. The PUT to that URL must carry a tar archive (gzip or
  not) of at most `MAX_UPLOAD_BYTES` (the body-size middleware refuses more unread); the
  bytes are kept in the store with the deployment, and purged with it. The token works
  once: a second PUT to the same URL is refused (403) and the first upload stays.
- Build logs: the lines of a revision's simulated build, computed from the same timeline
  as its status (`lifecycle.timeline`), so they grow while it builds.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import secrets
import tarfile
import uuid
from dataclasses import dataclass
from typing import Any

from planner.api.models import RevisionStatus
from planner.api.other_models import BuildLogOrder
from planner.api.vocabulary import AGENT_CONFIG_KEY, GIT_SOURCE
from planner.controlplane import lifecycle, views
from planner.controlplane.rows import DeploymentRow, RevisionRow, UploadRow
from planner.controlplane.service import Conflict, NotFound, deployment_not_found
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import Store, Transaction

TOKEN_SECONDS = 3600.0
SANDBOX_REGISTRY = "registry.sandbox.invalid"  # a reserved name: nothing answers there
REGISTRY_USERNAME = "sandbox"
UPLOAD_HEADERS = {"Content-Type": "application/gzip"}
UPLOADS_PATH = "/local/uploads/"  # where upload URLs point (after any /api-host prefix)
MAX_UPLOAD_BYTES = 1024 * 1024

S = RevisionStatus


class UploadRefused(Exception):
    """HTTP 403 (bad, expired or used token) or 400 (not a tar archive) `{detail}`."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class LogLine:
    at: float
    message: str
    level: str = "info"

    def wire(self) -> dict[str, Any]:
        return {"timestamp": views.iso(self.at), "level": self.level, "message": self.message}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_tar_archive(content: bytes) -> bool:
    """A readable tar archive, compressed or not (what a source upload must be)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(content), mode="r:*") as archive:
            archive.getmembers()
    except (tarfile.TarError, EOFError, OSError):
        return False
    return True


class Artifacts:
    """Push tokens, uploads and build logs of one workspace's deployments."""

    def __init__(self, store: Store, settings: ServerSettings, tenant_id: str) -> None:
        self.store = store
        self.settings = settings
        self.tenant_id = tenant_id

    def _deployment(self, tx: Transaction, deployment_id: str, source: str) -> DeploymentRow:
        row = tx.get_deployment(self.tenant_id, deployment_id)
        if row is None:
            raise deployment_not_found(deployment_id)
        if row.delete_at is not None:
            raise Conflict(f"Deployment ID {deployment_id} is being deleted.")
        if row.source != source:
            raise Conflict(f"This is only available for '{source}' source deployments.")
        return row

    def push_token(self, deployment_id: str) -> dict[str, Any]:
        now = self.settings.clock()
        with self.store.snapshot() as tx:
            row = self._deployment(tx, deployment_id, "internal_docker")
        registry = f"{SANDBOX_REGISTRY}/{self.tenant_id}"
        return {
            "token": secrets.token_urlsafe(32),
            "registry": registry,
            "registry_url": f"https://{registry}",
            "repository_url": f"https://{registry}/{row.name}",
            "username": REGISTRY_USERNAME,
            "expires_at": views.iso(now + TOKEN_SECONDS),
        }

    def upload_url(self, deployment_id: str, base_url: str) -> dict[str, Any]:
        """A one-time upload slot; `base_url` is where this server is reached."""
        now = self.settings.clock()
        token = secrets.token_urlsafe(32)
        upload_id = str(uuid.uuid4())
        with self.store.transaction() as tx:
            row = self._deployment(tx, deployment_id, "internal_source")
            upload = UploadRow(
                id=upload_id,
                object_path=f"uploads/{row.id}/{upload_id}.tar.gz",
                tenant_id=self.tenant_id,
                deployment_id=row.id,
                token_sha256=_digest(token.encode()),
                created_at=now,
                expires_at=now + TOKEN_SECONDS,
            )
            tx.insert_upload(upload)
        return {
            "upload_url": f"{base_url}{UPLOADS_PATH}{upload_id}?token={token}",
            "object_path": upload.object_path,
            "upload_headers": dict(UPLOAD_HEADERS),
            "expires_at": views.iso(upload.expires_at),
        }


def receive_upload(
    store: Store, settings: ServerSettings, upload_id: str, token: str, content: bytes
) -> dict[str, Any]:
    """Keep the tarball PUT to an upload URL (authorised by its token alone)."""
    now = settings.clock()
    with store.transaction() as tx:
        upload = tx.get_upload(upload_id)
        if upload is None:
            raise NotFound(f"Upload {upload_id} not found.")
        if not hmac.compare_digest(upload.token_sha256, _digest(token.encode())):
            raise UploadRefused(403, "The upload URL's token does not match.")
        if now > upload.expires_at:
            raise UploadRefused(403, "The upload URL has expired; request a new one.")
        if upload.uploaded_at is not None:
            raise UploadRefused(403, "The upload URL has been used; request a new one.")
        if not is_tar_archive(content):
            raise UploadRefused(400, "The body is not a tar archive (.tar or .tar.gz).")
        sha256 = _digest(content)
        tx.store_upload(upload_id, content, sha256, now)
    return {"object_path": upload.object_path, "size": len(content), "sha256": sha256}


class BuildLogs:
    """The simulated build's log lines of one workspace's revisions."""

    def __init__(self, store: Store, settings: ServerSettings, tenant_id: str) -> None:
        self.store = store
        self.settings = settings
        self.tenant_id = tenant_id

    def page(
        self, project_id: str, revision_id: str, order: BuildLogOrder, limit: int, offset: int
    ) -> dict[str, Any]:
        """`project_id` is the deployment's id or its tracing project's id."""
        now = self.settings.clock()
        with self.store.snapshot() as tx:
            row = self._deployment_of(tx, project_id)
            revision = tx.get_revision(row.id, revision_id)
            if revision is None:
                raise NotFound(f"Revision ID {revision_id} not found.")
            path = revision.source_revision_config.get("source_tarball_path")
            upload = tx.find_upload(self.tenant_id, str(path)) if path else None
        lines = build_log_lines(row, revision, upload, now)
        if order == BuildLogOrder.DESC:
            lines.reverse()
        chosen = lines[offset : offset + limit]
        return {"logs": [line.wire() for line in chosen], "next_offset": str(offset + len(chosen))}

    def _deployment_of(self, tx: Transaction, project_id: str) -> DeploymentRow:
        row = tx.get_deployment(self.tenant_id, project_id)
        if row is None:
            project = tx.tracing_project(self.tenant_id, project_id)
            if project is not None:
                row = tx.get_deployment(self.tenant_id, project.deployment_id)
        if row is None:
            raise NotFound(f"Project ID {project_id} not found.")
        return row


def build_log_lines(
    row: DeploymentRow, revision: RevisionRow, upload: UploadRow | None, now: float
) -> list[LogLine]:
    """Every line the build of `revision` has written by `now`, oldest first."""
    timing = views.timing_of(revision)
    config = revision.source_revision_config
    lines = [LogLine(revision.created_at, f"Revision {revision.id} queued ({revision.source}).")]
    if lifecycle.is_waiting_for_artifact(revision.source, config):
        lines.append(LogLine(revision.created_at, "Waiting for the image or source tarball."))
        return lines
    steps = [
        (revision.created_at + offset, status) for offset, status in lifecycle.timeline(timing)
    ]
    for at, status in steps:
        if at > now or (revision.skipped_at is not None and at >= revision.skipped_at):
            break
        lines += _lines_at(at, status, row, revision, upload)
    if revision.skipped_at is not None and revision.skipped_at <= now:
        lines.append(LogLine(revision.skipped_at, "Superseded by a newer revision: skipped."))
    return lines


def _lines_at(
    at: float,
    status: RevisionStatus,
    row: DeploymentRow,
    revision: RevisionRow,
    upload: UploadRow | None,
) -> list[LogLine]:
    config = revision.source_revision_config
    docker = revision.source in lifecycle.DOCKER_SOURCES
    if status is S.AWAITING_BUILD:
        return [LogLine(at, "Waiting for a build worker.")]
    if status is S.BUILDING:
        return [LogLine(at, message) for message in _build_messages(row, revision, upload)]
    if status is S.AWAITING_DEPLOY:
        if docker:
            return [LogLine(at, f"Pulled image {config.get('image_uri')}.")]
        return [LogLine(at, f"Build succeeded: image sandbox/{row.name}:{revision.seq}.")]
    if status is S.BUILD_FAILED:
        what = "Pulling the image" if docker else "The build"
        return [
            LogLine(
                at, f"{what} failed (the artifact names '{lifecycle.BUILD_FAILURE_MARK}').", "error"
            )
        ]
    return []


def _build_messages(
    row: DeploymentRow, revision: RevisionRow, upload: UploadRow | None
) -> list[str]:
    config = revision.source_revision_config
    if revision.source == GIT_SOURCE:
        source = f"Cloning {row.source_config.get('repo_url')} at {config.get('repo_ref')}"
        source += f" ({config.get('repo_commit_sha')})."
    elif upload is not None and upload.sha256 is not None:
        source = f"Fetched {upload.object_path}: {upload.size} bytes, sha256 {upload.sha256}."
    else:
        source = f"Fetching {config.get('source_tarball_path')}."
    messages = [source, f"Reading {config.get(AGENT_CONFIG_KEY)}."]
    for key, label in (("install_command", "Installing"), ("build_command", "Building")):
        command = row.source_config.get(key)
        if command:
            messages.append(f"{label}: {command}")
    return messages
