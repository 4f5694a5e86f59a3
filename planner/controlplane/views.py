"""Stored rows -> wire JSON of the API, with statuses computed at `now`.

Top-level fields are always present (null when unset); `source_config` and
`source_revision_config` carry only the fields that are set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import lru_cache
from json.encoder import encode_basestring
from typing import Any

from planner.controlplane import lifecycle
from planner.controlplane.store import (
    RevisionRow,
    RevisionSummary,
    StoredDeployment,
    TracingProjectRow,
)


# A stored time is shown on every page and poll that lists its row: formatted once (a
# twentieth of a list page's CPU); the bound keeps the cache below a few MB.
@lru_cache(maxsize=1 << 16)
def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def commit_sha(repo_url: str | None, repo_ref: str | None) -> str | None:
    """A stand-in commit for a git revision: stable for one (repo, ref) pair."""
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

# What a JSONResponse writes (Starlette's `JSONResponse.render`): a view's text must be
# those very bytes.
_WIRE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


def _wire(stored: str) -> str:
    """A stored JSON column as a response writes its value.

    The store writes compact ASCII JSON: that is the response's text unless it escapes a
    character (`\\u`, which a response writes raw) or was written in another form (a
    file of an older release wrote `", "` and `": "`); only those are decoded again."""
    if "\\u" in stored or ", " in stored or ": " in stored:
        return _WIRE.encode(json.loads(stored))
    return stored


def _source_config(source: str, stored: str) -> str:
    text = _wire(stored)
    if source != "external_docker":
        return text
    if '"deployment_type"' in text or '"build_on_push"' in text:
        return _WIRE.encode({**_EXTERNAL_READ_DEFAULTS, **json.loads(text)})
    defaults = _WIRE.encode(_EXTERNAL_READ_DEFAULTS)
    return defaults if text == "{}" else f"{defaults[:-1]},{text[1:]}"


def _revision_config(stored: str, latest_sha: Any) -> str:
    """The deployment's revision config with its latest revision's commit (added last, or
    in its place when the stored config names one)."""
    text = _wire(stored)
    if not latest_sha:
        return text
    if '"repo_commit_sha"' in text or not isinstance(latest_sha, str):
        value = json.loads(text)
        value["repo_commit_sha"] = latest_sha
        return _WIRE.encode(value)
    sha = f'"repo_commit_sha":{encode_basestring(latest_sha)}}}'
    return "{" + sha if text == "{}" else f"{text[:-1]},{sha}"


def deployment_json(row: StoredDeployment, revisions: Sequence[RevisionSummary], now: float) -> str:
    """The deployment's wire JSON text; `revisions` are its own, newest first."""
    timings = [(r.id, r) for r in revisions]
    latest_sha = revisions[0].repo_commit_sha if revisions else None
    # A deployment being deleted is never patched: its updated_at is the request's time.
    status = lifecycle.deployment_status(row.ready_at, row.delete_at, now, row.updated_at)
    return "".join(
        (
            '{"id":',
            encode_basestring(row.id),
            ',"tenant_id":',
            encode_basestring(row.tenant_id),
            ',"name":',
            encode_basestring(row.name),
            ',"display_name":',
            _text(row.display_name),
            ',"source":',
            encode_basestring(row.source),
            ',"source_config":',
            _source_config(row.source, row.source_config),
            ',"source_revision_config":',
            _revision_config(row.source_revision_config, latest_sha),
            ',"secrets":',
            _wire(row.secrets),
            ',"secret_references":',
            _wire(row.secret_references),
            ',"created_at":"',
            iso(row.created_at),
            '","updated_at":"',
            iso(row.updated_at),
            '","status":"',
            status.value,
            '","latest_revision_id":',
            _text(row.latest_revision_id),
            ',"active_revision_id":',
            _text(lifecycle.active_revision(timings, now)),
            ',"image_version":',
            _text(row.image_version),
            "}",
        )
    )


def settled_since(row: StoredDeployment, revisions: Sequence[RevisionSummary]) -> float | None:
    """From when `deployment_json` of ROW and its REVISIONS no longer changes with time
    (READY, and every revision's status final); None while it is being deleted."""
    if row.delete_at is not None:
        return None
    since = row.ready_at
    for revision in revisions:
        at = lifecycle.settled_at(revision)
        if at > since:
            since = at
    return since


def page_json(items: Sequence[str], offset: int) -> str:
    """A list page `{resources, offset}` of views already written."""
    return f'{{"resources":[{",".join(items)}],"offset":{offset}}}'


def tracing_project_view(row: TracingProjectRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "deployment_id": row.deployment_id,
        "tenant_id": row.tenant_id,
        "created_at": iso(row.created_at),
    }
