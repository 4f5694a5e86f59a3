"""Time math of the local control plane: revision and deployment statuses from timestamps.

Nothing runs in the background. A revision stores when it was created, the build and
deploy durations in force at that moment, and (once superseded) when it was skipped; its
status at any instant is a pure function of those and the clock. A revision walks

    QUEUED -> AWAITING_BUILD -> BUILDING -> AWAITING_DEPLOY -> DEPLOYING -> DEPLOYED

Each phase spends `QUEUE_SHARE` of its duration in its waiting status first. Docker
sources skip the build phase: QUEUED -> AWAITING_DEPLOY -> DEPLOYING -> DEPLOYED over
`deploy_seconds`. A `fail-build` / `fail-deploy` marker in the revision's artifact
(`repo_ref`, `image_uri`, `source_tarball_path`) ends the walk in BUILD_FAILED at the end
of the build phase (for docker sources: at the end of QUEUED, when the image is pulled) /
DEPLOY_FAILED at the end of the deploy phase.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from planner.api.models import DeploymentStatus, RevisionStatus, is_final_revision_status

QUEUE_SHARE = 0.1
DOCKER_SOURCES = frozenset({"external_docker", "internal_docker"})
# Sources whose first revision may be created empty and wait for its artifact.
ARTIFACT_FIELDS: dict[str, str] = {
    "internal_docker": "image_uri",
    "internal_source": "source_tarball_path",
}
FAILURE_FIELDS = ("repo_ref", "image_uri", "source_tarball_path")
BUILD_FAILURE_MARK = "fail-build"
DEPLOY_FAILURE_MARK = "fail-deploy"

S = RevisionStatus


@dataclass(frozen=True)
class RevisionTiming:
    """What decides a revision's status over time (all timestamps in epoch seconds)."""

    source: str
    source_revision_config: Mapping[str, Any]
    created_at: float
    build_seconds: float
    deploy_seconds: float
    skipped_at: float | None = None


class Timed(Protocol):
    """Anything carrying a revision's timing (a `RevisionTiming`, a stored revision row)."""

    @property
    def source(self) -> str: ...
    @property
    def source_revision_config(self) -> Mapping[str, Any]: ...
    @property
    def created_at(self) -> float: ...
    @property
    def build_seconds(self) -> float: ...
    @property
    def deploy_seconds(self) -> float: ...
    @property
    def skipped_at(self) -> float | None: ...


@dataclass(frozen=True)
class StatusAt:
    """A status and the instant it began (the revision's `updated_at`)."""

    status: RevisionStatus
    since: float


def is_waiting_for_artifact(source: str, source_revision_config: Mapping[str, Any]) -> bool:
    """internal_docker / internal_source revisions without an image / tarball never start."""
    field = ARTIFACT_FIELDS.get(source)
    return field is not None and not source_revision_config.get(field)


def status_config(source: str, stored: str) -> Mapping[str, Any]:
    """What a revision's status reads of its stored config (JSON text): nothing, unless a
    failure marker may be in it or its source waits for an artifact (then all of it).

    With no `fail-` anywhere in the text no artifact field carries a marker, and only
    `ARTIFACT_FIELDS` sources look for an artifact: an empty config gives the same status
    without decoding the text (a list page computes a hundred)."""
    if source in ARTIFACT_FIELDS or "fail-" in stored:
        config: Mapping[str, Any] = json.loads(stored)
        return config
    return _NOTHING


_NOTHING: Mapping[str, Any] = MappingProxyType({})


def failure_mark(source_revision_config: Mapping[str, Any]) -> RevisionStatus | None:
    """BUILD_FAILED or DEPLOY_FAILED when an artifact field carries a failure marker."""
    if not source_revision_config:
        return None  # a status config without a marker (`status_config`)
    values = [str(source_revision_config.get(f) or "") for f in FAILURE_FIELDS]
    if not any("fail-" in v for v in values):
        return None  # the common case, one scan (both markers start with it)
    if any(BUILD_FAILURE_MARK in v for v in values):
        return S.BUILD_FAILED
    if any(DEPLOY_FAILURE_MARK in v for v in values):
        return S.DEPLOY_FAILED
    return None


def timeline(timing: Timed) -> tuple[tuple[float, RevisionStatus], ...]:
    """(offset from creation, status) steps in order; the last step is final."""
    failure = failure_mark(timing.source_revision_config)
    return _timeline(timing.source, timing.build_seconds, timing.deploy_seconds, failure)


@functools.lru_cache(maxsize=256)  # a server has a handful of (source, timings, failure)
def _timeline(
    source: str, build: float, deploy: float, failure: RevisionStatus | None
) -> tuple[tuple[float, RevisionStatus], ...]:
    return tuple(_steps(source, build, deploy, failure))


def _steps(
    source: str, build: float, deploy: float, failure: RevisionStatus | None
) -> list[tuple[float, RevisionStatus]]:
    if source in DOCKER_SOURCES:
        pulled = QUEUE_SHARE * deploy
        if failure is S.BUILD_FAILED:
            return [(0.0, S.QUEUED), (pulled, S.BUILD_FAILED)]
        steps = [(0.0, S.QUEUED), (pulled, S.AWAITING_DEPLOY), (2 * pulled, S.DEPLOYING)]
        return [*steps, (deploy, failure or S.DEPLOYED)]
    queued = QUEUE_SHARE * build
    steps = [(0.0, S.QUEUED), (queued, S.AWAITING_BUILD), (2 * queued, S.BUILDING)]
    if failure is S.BUILD_FAILED:
        return [*steps, (build, S.BUILD_FAILED)]
    steps += [(build, S.AWAITING_DEPLOY), (build + QUEUE_SHARE * deploy, S.DEPLOYING)]
    return [*steps, (build + deploy, failure or S.DEPLOYED)]


def revision_status(timing: Timed, now: float) -> StatusAt:
    """The status of a revision at `now`, and since when it has held."""
    return StatusAt(*_status_since(timing, now))


def _status_since(timing: Timed, now: float) -> tuple[RevisionStatus, float]:
    if timing.skipped_at is not None and now >= timing.skipped_at:
        return S.SKIPPED, timing.skipped_at
    if is_waiting_for_artifact(timing.source, timing.source_revision_config):
        return S.QUEUED, timing.created_at
    steps = timeline(timing)
    last = timing.created_at + steps[-1][0]
    if now >= last:  # ended (most reads): the last step, as the walk below ends on it
        return steps[-1][1], last
    status, since = S.QUEUED, timing.created_at
    for offset, step in steps:
        at = timing.created_at + offset
        if at > now:
            break
        status, since = step, at
    return status, since


def settled_at(timing: Timed) -> float:
    """The instant from which the revision's status no longer changes with time (until a
    write changes the revision): SKIPPED from its skip on, QUEUED for good while waiting
    for its artifact, else the last step of its timeline."""
    if timing.skipped_at is not None:
        return timing.skipped_at
    if is_waiting_for_artifact(timing.source, timing.source_revision_config):
        return timing.created_at
    return timing.created_at + timeline(timing)[-1][0]


def is_unfinished(timing: Timed, now: float) -> bool:
    """Still walking (or waiting) at `now`: a newer revision would supersede it."""
    return not is_final_revision_status(revision_status(timing, now).status)


def active_revision(revisions: Sequence[tuple[str, Timed]], now: float) -> str | None:
    """The id of the newest DEPLOYED revision; `revisions` come newest first."""
    for revision_id, timing in revisions:
        if _status_since(timing, now)[0] is S.DEPLOYED:
            return revision_id
    return None


def database_seconds(deploy_seconds: float) -> float:
    """How long a new deployment waits for its database (AWAITING_DATABASE) before READY."""
    return QUEUE_SHARE * deploy_seconds


def deployment_status(
    ready_at: float, delete_at: float | None, now: float, delete_requested_at: float | None = None
) -> DeploymentStatus:
    """AWAITING_DELETE once deletion is requested, AWAITING_FINAL_DELETE over the second half
    of the deletion (when the request time is known), else READY once the database is up."""
    if delete_at is not None:
        if delete_requested_at is not None and now >= (delete_requested_at + delete_at) / 2:
            return DeploymentStatus.AWAITING_FINAL_DELETE
        return DeploymentStatus.AWAITING_DELETE
    if now >= ready_at:
        return DeploymentStatus.READY
    return DeploymentStatus.AWAITING_DATABASE
