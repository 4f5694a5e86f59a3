"""Deployment and revision operations of the local control plane (no HTTP here).

Each operation is one store transaction in one workspace (`tenant_id`), and returns wire
JSON computed at the clock's `now` (a deployment's as text, written from its stored
columns). Failures raise the exceptions below; the routes map
them to HTTP statuses.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from planner import __version__
from planner.api.models import (
    DeploymentCreate,
    DeploymentPatch,
    RevisionCreate,
    RevisionStatus,
    SourceConfig,
)
from planner.api.vocabulary import GIT_SOURCE
from planner.controlplane import lifecycle, views
from planner.controlplane.patching import apply_patch, unique_secrets
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import (
    DeploymentFilter,
    DeploymentRow,
    RevisionRow,
    RevisionSummary,
    Store,
    StoredDeployment,
    TracingProjectRow,
    Transaction,
    stored,
)

IMAGE_VERSION = __version__


class NotFound(Exception):
    """HTTP 404 `{detail}`."""


class Conflict(Exception):
    """HTTP 409 `{detail}`."""


class Refused(Exception):
    """HTTP 400 `{detail}`: a request the resource cannot honour (a revision that cannot
    be redeployed)."""


def deployment_not_found(deployment_id: str) -> NotFound:
    return NotFound(f"Deployment ID {deployment_id} not found.")


class Deployments:
    """Operations on one workspace's deployments."""

    def __init__(self, store: Store, settings: ServerSettings, tenant_id: str) -> None:
        self.store = store
        self.settings = settings
        self.tenant_id = tenant_id

    def _now(self) -> float:
        return self.settings.clock()

    def _new_revision(
        self,
        tx: Transaction,
        row: DeploymentRow,
        now: float,
        *,
        is_new: bool = False,
        source: str | None = None,
    ) -> list[RevisionRow]:
        """Insert a revision of `row`'s current config; unfinished older ones are SKIPPED
        (IS_NEW: `row` is being created, it has none to look up). SOURCE: the revision's,
        when not the deployment's (a PATCH's `revision_source`).

        Returns every revision of `row` as stored now, newest first (for its view)."""
        older = [] if is_new else tx.revisions_of([row.id])[row.id]
        skipped = [r for r in older if lifecycle.is_unfinished(views.timing_of(r), now)]
        tx.mark_skipped([r.id for r in skipped], now)
        for revision in skipped:
            revision.skipped_at = now
        config = dict(row.source_revision_config)
        if row.source == GIT_SOURCE:
            sha = views.commit_sha(row.source_config.get("repo_url"), config.get("repo_ref"))
            config["repo_commit_sha"] = sha
        revision = RevisionRow(
            id=str(uuid.uuid4()),
            deployment_id=row.id,
            seq=older[0].seq + 1 if older else 1,
            source=source or row.source,
            source_revision_config=config,
            created_at=now,
            build_seconds=self.settings.build_seconds,
            deploy_seconds=self.settings.deploy_seconds,
        )
        tx.insert_revision(revision)
        row.latest_revision_id = revision.id
        return [revision, *older]

    def _view(self, tx: Transaction, row: StoredDeployment, now: float) -> str:
        return views.deployment_json(row, tx.revision_summaries([row.id])[row.id], now)

    def _get(self, tx: Transaction, deployment_id: str) -> DeploymentRow:
        row = tx.get_deployment(self.tenant_id, deployment_id)
        if row is None:
            raise deployment_not_found(deployment_id)
        return row

    def create(self, body: DeploymentCreate, *, batched: bool = False) -> str:
        """A new deployment with its first revision and its tracing project (BATCHED: in
        a `Store.batched()` unit, committed with the others of its turn of the loop)."""
        now = self._now()
        wire = body.model_dump(mode="json", exclude_none=True)
        source_config = {k: v for k, v in wire["source_config"].items() if v != {}}
        if body.source != "external_docker":
            source_config.setdefault("deployment_type", "prod")
        if body.source == GIT_SOURCE:
            source_config.setdefault("build_on_push", False)  # the service's default, echoed
        row = DeploymentRow(
            id=str(uuid.uuid4()),
            tenant_id=self.tenant_id,
            name=body.name,
            source=body.source,
            source_config=source_config,
            source_revision_config=wire["source_revision_config"],
            secrets=unique_secrets(wire["secrets"]),
            secret_references=wire.get("secret_references", []),
            image_version=IMAGE_VERSION,
            latest_revision_id=None,
            created_at=now,
            updated_at=now,
            ready_at=now + lifecycle.database_seconds(self.settings.deploy_seconds),
            display_name=body.display_name,
        )
        with self.store.batched() if batched else self.store.transaction() as tx:
            if tx.has_name(self.tenant_id, body.name):
                raise Conflict(f"A deployment named '{body.name}' already exists.")
            revisions = self._new_revision(tx, row, now, is_new=True)
            written = tx.insert_deployment(row)
            tx.insert_tracing_project(
                TracingProjectRow(str(uuid.uuid4()), self.tenant_id, row.id, row.name, now)
            )
        return views.deployment_json(written, [RevisionSummary.of(r) for r in revisions], now)

    def get(self, deployment_id: str) -> str:
        now = self._now()
        with self.store.snapshot() as tx:
            row = tx.stored_deployment(self.tenant_id, deployment_id)
            if row is None:
                raise deployment_not_found(deployment_id)
            return self._view(tx, row, now)

    def list_page(self, where: DeploymentFilter, limit: int, offset: int) -> str:
        """One page `{resources, offset}`; `offset` is where the next page starts."""
        now = self._now()
        with self.store.snapshot() as tx:
            resources = tx.settled_page(self.tenant_id, where, now, limit, offset)
            if resources is None:
                resources = self._page(tx, where, now, limit, offset)
        return views.page_json(resources, offset + len(resources))

    def _page(
        self, tx: Transaction, where: DeploymentFilter, now: float, limit: int, offset: int
    ) -> list[str]:
        """The views of a page read whole; those of a plain page that are settled now are
        kept for the next (in the snapshot: no write can come between)."""
        page = tx.list_deployments(self.tenant_id, where, now, limit, offset)
        resources = [views.deployment_json(row, revisions, now) for row, revisions in page]
        if where == DeploymentFilter():
            kept = tx.memo.views
            for (row, revisions), text in zip(page, resources, strict=True):
                if kept.get(row.id, now) is not None:
                    continue  # kept already (a page read whole for another reason)
                since = views.settled_since(row, revisions)
                if since is not None and now >= since:
                    kept.keep(row.id, since, text)
        return resources

    def patch(
        self, deployment_id: str, patch: DeploymentPatch, revision_source: str | None = None
    ) -> str:
        """Merge `patch`; one new revision when a new-revision field changed, of
        REVISION_SOURCE when given (the fields are still the deployment's source's)."""
        now = self._now()
        with self.store.transaction() as tx:
            row = self._get(tx, deployment_id)
            if row.delete_at is not None:
                raise Conflict(f"Deployment ID {deployment_id} is being deleted.")
            patched = apply_patch(vars(row), patch)
            retry = _sends_revision_config(patch) and self._is_stuck(tx, row, now)
            if patched.changed or retry:
                row.display_name = patched.display_name
                row.source_config = patched.source_config
                row.source_revision_config = patched.source_revision_config
                row.secrets = patched.secrets
                row.secret_references = patched.secret_references
                row.updated_at = now
                if patched.needs_revision or retry:
                    self._new_revision(tx, row, now, source=revision_source)
                return self._view(tx, tx.update_deployment(row), now)
            return self._view(tx, stored(row), now)

    def _is_stuck(self, tx: Transaction, row: DeploymentRow, now: float) -> bool:
        """The latest revision ended (failed) without becoming active: a PATCH that sends
        `source_revision_config` again, even unchanged, submits it as a new revision."""
        revisions = tx.revisions_of([row.id])[row.id]
        if not revisions:
            return False
        timings = [(r.id, views.timing_of(r)) for r in revisions]
        ended = not lifecycle.is_unfinished(timings[0][1], now)
        return ended and lifecycle.active_revision(timings, now) != revisions[0].id

    def delete(self, deployment_ids: Sequence[str]) -> dict[str, Any]:
        """Start deleting every id (all must exist); ids already being deleted fail."""
        now = self._now()
        unique = list(dict.fromkeys(deployment_ids))
        with self.store.transaction() as tx:
            rows = [self._get(tx, i) for i in unique]
            failed = [r.id for r in rows if r.delete_at is not None]
            deleted = [r.id for r in rows if r.delete_at is None]
            tx.mark_deleting(deleted, now, now + self.settings.delete_seconds)
        return {
            "deleted": deleted,
            "failed": [
                {"deployment_id": i, "detail": f"Deployment ID {i} is already being deleted."}
                for i in failed
            ],
        }

    def get_revision(self, deployment_id: str, revision_id: str) -> dict[str, Any]:
        now = self._now()
        with self.store.snapshot() as tx:
            self._get(tx, deployment_id)
            revision = tx.get_revision(deployment_id, revision_id)
        if revision is None:
            raise NotFound(f"Revision ID {revision_id} not found.")
        return views.revision_view(revision, now)

    def list_revisions(
        self, deployment_id: str, limit: int, offset: int, statuses: frozenset[str] | None = None
    ) -> dict[str, Any]:
        """Newest first, `{resources, offset}` like the deployment list; `statuses` keeps
        only revisions whose status (computed now) is one of them."""
        now = self._now()
        with self.store.snapshot() as tx:
            self._get(tx, deployment_id)
            if statuses is None:
                rows = tx.list_revisions(deployment_id, limit, offset)
            else:
                rows = tx.all_revisions(deployment_id)
        resources = [views.revision_view(r, now) for r in rows]
        if statuses is not None:
            matching = [r for r in resources if r["status"] in statuses]
            resources = matching[offset : offset + limit]
        return {"resources": resources, "offset": offset + len(resources)}

    def delete_one(self, deployment_id: str) -> None:
        """Start deleting one deployment; one already being deleted stays as it is."""
        now = self._now()
        with self.store.transaction() as tx:
            row = self._get(tx, deployment_id)
            if row.delete_at is None:
                tx.mark_deleting([row.id], now, now + self.settings.delete_seconds)

    def create_revision(self, deployment_id: str, body: RevisionCreate) -> dict[str, Any]:
        """Merge `body` as a PATCH would, then ONE new revision, changed or not."""
        now = self._now()
        wire = body.model_dump(exclude_none=True)
        patch = DeploymentPatch(
            source_config=SourceConfig(**wire["source_config"]) if body.source_config else None,
            source_revision_config=body.source_revision_config,
            secrets=body.secrets,
            secret_references=body.secret_references,
        )
        with self.store.transaction() as tx:
            row = self._get(tx, deployment_id)
            if row.delete_at is not None:
                raise Conflict(f"Deployment ID {deployment_id} is being deleted.")
            patched = apply_patch(vars(row), patch)
            row.source_config = patched.source_config
            row.source_revision_config = patched.source_revision_config
            row.secrets = patched.secrets
            row.secret_references = patched.secret_references
            row.updated_at = now
            revision = self._new_revision(tx, row, now)[0]
            tx.update_deployment(row)
        return views.revision_view(revision, now)

    def redeploy(self, deployment_id: str, revision_id: str) -> str:
        """A new revision of an earlier one's source and config, which becomes the
        deployment's (its active one once deployed); the deployment's view. Only a revision
        that reached DEPLOYED can be redeployed (`Refused` otherwise)."""
        now = self._now()
        with self.store.transaction() as tx:
            row = self._get(tx, deployment_id)
            if row.delete_at is not None:
                raise Conflict(f"Deployment ID {deployment_id} is being deleted.")
            earlier = tx.get_revision(deployment_id, revision_id)
            if earlier is None:
                raise NotFound(f"Revision ID {revision_id} not found.")
            status = lifecycle.revision_status(views.timing_of(earlier), now).status
            if status is not RevisionStatus.DEPLOYED:
                raise Refused(
                    f"Revision ID {revision_id} cannot be redeployed: it is {status.value}; "
                    "only a revision that was DEPLOYED can be."
                )
            config = dict(earlier.source_revision_config)
            config.pop("repo_commit_sha", None)  # the revision's own, computed again
            row.source_revision_config = config
            row.updated_at = now
            self._new_revision(tx, row, now, source=earlier.source)
            return self._view(tx, tx.update_deployment(row), now)

    def tracing_projects(self) -> list[dict[str, Any]]:
        with self.store.snapshot() as tx:
            rows = tx.tracing_projects(self.tenant_id)
        return [views.tracing_project_view(r) for r in rows]


def _sends_revision_config(patch: DeploymentPatch) -> bool:
    """The PATCH carries a revision config (at least one non-null field of it)."""
    config = patch.source_revision_config
    return config is not None and bool(config.model_dump(exclude_none=True))
