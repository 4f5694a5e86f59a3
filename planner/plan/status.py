"""`planner status` and `planner history` as data: what runs now, and how it got there.

Pure: the CLI reads the state, refreshes (`refresh_observed`: list cost, plus one revision
read per deployment whose latest and active revision differ) and lists revisions; these
functions turn that into rows the renderers print.

- A converged deployment's latest revision is its active one, so its status is DEPLOYED
  without reading it; a differing one carries the status its health read found.
- `drift` is the plan's drift (recorded vs observed, `ignore_changes` honoured): yes/no
  (a held deployment's too: the rollback recorded what it redeployed, so only a change
  made outside the planner since shows, as in a plan).
- `held`: the hold a rollback recorded (`planner release` lifts it); absent when none,
  so a state without holds shows what it showed before holds existed.
- History compares consecutive revisions on what a revision carries (`source` and
  `source_revision_config`); a revision with no such change was made by a
  `source_config` or secrets change, or a retry, which revisions do not show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from planner.api.models import Deployment, Revision
from planner.config.desired import DesiredDeployment
from planner.plan.drift import deployment_drift
from planner.plan.health import READ_ONLY_REVISION_KEYS, RevisionHealth
from planner.plan.paths import flatten
from planner.state.document import iso_utc
from planner.state.records import Hold, RecordedDeployment

DEPLOYED = "DEPLOYED"


class StatusRow(BaseModel):
    """One managed deployment as it runs now (`gone`: it no longer exists remotely)."""

    model_config = ConfigDict(frozen=True)

    name: str
    id: str
    gone: bool = False
    active_revision_id: str | None = None
    active_status: str | None = None
    latest_revision_id: str | None = None
    latest_status: str | None = None
    updated_at: str | None = None
    url: str | None = None
    drift: bool = False
    held: Hold | None = Field(
        default=None,
        exclude_if=lambda held: held is None,
        description="the hold a rollback recorded (absent: not held)",
    )


class HistoryEntry(BaseModel):
    """One revision, and the field paths that changed since the one before it."""

    model_config = ConfigDict(frozen=True)

    id: str
    created_at: str
    status: str
    active: bool = False
    held: bool = Field(
        default=False,
        exclude_if=lambda held: not held,
        description="the revision a rollback went back to (its redeploy is the active one) "
        "and holds the deployment on until `planner release` (absent: not it)",
    )
    changed: list[str]


def status_rows(
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Deployment | None],
    health: Mapping[str, RevisionHealth],
    desired: Mapping[str, DesiredDeployment],
    key: bytes,
) -> list[StatusRow]:
    """A row per recorded deployment, by name."""
    return [
        status_row(recorded[name], observed.get(name), health.get(name), desired.get(name), key)
        for name in sorted(recorded)
    ]


def status_row(
    recorded: RecordedDeployment,
    live: Deployment | None,
    health: RevisionHealth | None,
    desired: DesiredDeployment | None,
    key: bytes,
) -> StatusRow:
    if live is None:
        return StatusRow(
            name=recorded.name, id=recorded.id, gone=True, drift=True, held=recorded.held
        )
    ignore = desired.lifecycle.ignore_changes if desired is not None else ()
    drift = deployment_drift(recorded, live, ignore_changes=ignore, digest_key=key)
    active = live.active_revision_id
    return StatusRow(
        name=recorded.name,
        id=live.id,
        active_revision_id=active,
        active_status=DEPLOYED if active else None,
        latest_revision_id=live.latest_revision_id,
        latest_status=health.status if health is not None else (DEPLOYED if active else None),
        updated_at=iso_utc(live.updated_at),
        url=live.source_config.custom_url,
        drift=bool(drift),
        held=recorded.held,
    )


def history_entries(
    revisions: Sequence[Revision], active_id: str | None, held_id: str | None = None
) -> list[HistoryEntry]:
    """REVISIONS (newest first) with what changed since the next older one; HELD_ID: the
    revision a rollback went back to (`Hold.revision_id`; the redeploy made a new one)."""
    entries = []
    for index, revision in enumerate(revisions):
        older = revisions[index + 1] if index + 1 < len(revisions) else None
        entries.append(
            HistoryEntry(
                id=revision.id,
                created_at=iso_utc(revision.created_at),
                status=str(revision.status),
                active=revision.id == active_id,
                held=revision.id == held_id,
                changed=changed_paths(older, revision) if older is not None else [],
            )
        )
    return entries


def changed_paths(older: Revision, newer: Revision) -> list[str]:
    """The field paths whose value differs between two revisions."""
    before, after = revision_fields(older), revision_fields(newer)
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def revision_fields(revision: Revision) -> dict[str, Any]:
    config = revision.source_revision_config.model_dump(mode="json", exclude_none=True)
    for name in READ_ONLY_REVISION_KEYS:
        config.pop(name, None)
    fields = flatten({"source_revision_config": config})
    if revision.source is not None:
        fields["source"] = str(revision.source)
    return fields
