"""Stored rows -> wire JSON of the API, with statuses computed at `now`.

Top-level fields are always present (null when unset); `source_config` and
`source_revision_config` carry only the fields that are set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from planner.controlplane import lifecycle
from planner.controlplane.store import DeploymentRow, RevisionRow, TracingProjectRow


# A stored time is shown on every page and poll that lists its row: formatted once (a
# twentieth of a list page's CPU); the bound keeps the cache below a few MB.
@lru_cache(maxsize=1 << 16)
def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def commit_sha(repo_url: str | None, repo_ref: str | None) -> str | None:
    """A stand-in commit for a git_host revision: stable for one (repo, ref) pair."""
    if not repo_ref:
        return None
    return hashlib.sha1(f"{repo_url}\0{repo_ref}".encode()).hexdigest()


def timing_of(revision: RevisionRow) -> lifecycle.Timed:
    """A stored revision carries its own timing (no copy per status computed)."""
    return revision


def revision_view(revision: RevisionRow, now: float) -> dict[str, Any]:
    state = lifecycle.revision_status(timing_of(revision), now)
    return {
        "id": revision.id,
        "deployment_id": revision.deployment_id,
        "created_at": iso(revision.created_at),
        "updated_at": iso(max(state.since, revision.created_at)),
        "status": state.status.value,
        "source": revision.source,
        "source_revision_config": dict(revision.source_revision_config),
    }


# What a read of an external_docker deployment echoes though a request may not set it: the
# service's defaults, which the official Terraform provider adopts as computed values.
# Echoed on reads only, never stored, so the source rules of a PATCH see what was sent.
_EXTERNAL_READ_DEFAULTS = {"deployment_type": "prod", "build_on_push": False}


def _with_service_defaults(source: str, stored: Mapping[str, Any]) -> dict[str, Any]:
    if source == "external_docker":
        return {**_EXTERNAL_READ_DEFAULTS, **stored}
    return dict(stored)


def deployment_view(
    row: DeploymentRow, revisions: Sequence[RevisionRow], now: float
) -> dict[str, Any]:
    """`revisions` are the deployment's, newest first."""
    timings = [(r.id, timing_of(r)) for r in revisions]
    revision_config = dict(row.source_revision_config)
    latest_sha = revisions[0].source_revision_config.get("repo_commit_sha") if revisions else None
    if latest_sha:
        revision_config["repo_commit_sha"] = latest_sha
    return {
        "id": row.id,
        "tenant_id": row.tenant_id,
        "name": row.name,
        "display_name": row.display_name,
        "source": row.source,
        "source_config": _with_service_defaults(row.source, row.source_config),
        "source_revision_config": revision_config,
        "secrets": list(row.secrets),
        "secret_references": list(row.secret_references),
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
        # A deployment being deleted is never patched: its updated_at is the request's time.
        "status": lifecycle.deployment_status(
            row.ready_at, row.delete_at, now, row.updated_at
        ).value,
        "latest_revision_id": row.latest_revision_id,
        "active_revision_id": lifecycle.active_revision(timings, now),
        "image_version": row.image_version,
    }


def tracing_project_view(row: TracingProjectRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "deployment_id": row.deployment_id,
        "tenant_id": row.tenant_id,
        "created_at": iso(row.created_at),
    }
