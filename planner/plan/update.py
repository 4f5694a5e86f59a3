"""The three-way comparison of one deployment that exists in the config, state and server."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from planner.api.fields import ChangeClass, classify
from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.body import patch_request_body
from planner.plan.changes import (
    action_for,
    field_change,
    immutable_error,
    secret_changes,
    secret_digests,
)
from planner.plan.model import Change, FieldChange, PlanProblem, PlanWarning
from planner.plan.paths import flatten, is_ignored
from planner.plan.views import desired_fields, observed_fields, observed_secrets, view, view_patch
from planner.state.records import RecordedDeployment


@dataclass(frozen=True)
class UpdateOutcome:
    change: Change
    errors: list[PlanProblem]
    warnings: list[PlanWarning]


def build_update(
    desired: DesiredDeployment,
    recorded: RecordedDeployment,
    observed: Deployment,
    *,
    key: bytes,
    drifted: Collection[str],
) -> UpdateOutcome:
    """Desired against observed, on the fields the config sets, leaving ignored ones alone."""
    ignore = desired.lifecycle.ignore_changes
    want = desired_fields(desired)
    have = observed_fields(observed, want)
    fields = [
        field_change(path, have[path], want[path], drifted=path in drifted)
        for path in sorted(want)
        if not is_ignored(path, ignore) and have[path] != want[path]
    ]
    planned = {p: have[p] if is_ignored(p, ignore) else want[p] for p in want}
    secrets, secret_fields, before_names, after_names = _secrets(desired, observed, drifted)
    fields += secret_fields
    before, after = view(have, before_names), view(planned, after_names)
    changed = [f.path.removeprefix("secrets.") for f in secret_fields if f.before and f.after]
    change = Change(
        name=desired.name,
        action=action_for(fields),
        deployment_id=recorded.id,
        fields=fields,
        before=before,
        after=after,
        patch=view_patch(before, after, changed),
        notes=released_notes(desired, recorded, want),
        request_body=patch_request_body(desired, observed, fields),
        send_secrets=bool(secret_fields),
        secret_digests=secret_digests(desired, key) if secrets else {},
    )
    errors = [
        immutable_error(desired.name, f) for f in fields if f.change_class is ChangeClass.IMMUTABLE
    ]
    return UpdateOutcome(change, errors, _secret_warnings(desired, bool(secret_fields)))


def _secrets(
    desired: DesiredDeployment, observed: Deployment, drifted: Collection[str]
) -> tuple[bool, list[FieldChange], list[str] | None, list[str] | None]:
    """(managed?, changes, names before, names after); secrets are managed as one list
    when the config sets any (the API cannot clear them all)."""
    ignore = desired.lifecycle.ignore_changes
    if not desired.secrets or "secrets" in ignore:
        return False, [], None, None
    seen = observed_secrets(observed)
    values = desired.secret_values()
    fields = secret_changes(values, seen, ignore=ignore, drifted=drifted)
    kept = [n for n in values if not is_ignored(f"secrets.{n}", ignore)]
    kept += [n for n in seen if is_ignored(f"secrets.{n}", ignore)]
    return True, fields, sorted(seen), sorted(kept)


def released_notes(
    desired: DesiredDeployment, recorded: RecordedDeployment, want: Collection[str]
) -> list[str]:
    """Fields the config set at the last apply and no longer sets: left as they are."""
    notes = [
        f"{path} is no longer set by the config: released, left as it is"
        for path in sorted(flatten(recorded.managed))
        if path not in want and classify(path) is not ChangeClass.READ_ONLY
    ]
    if recorded.secret_digests and not desired.secrets:
        notes.append("secrets are no longer set by the config: released, left as they are")
    return notes


def _secret_warnings(desired: DesiredDeployment, sends_secrets: bool) -> list[PlanWarning]:
    per_name = [p for p in desired.lifecycle.ignore_changes if p.startswith("secrets.")]
    if not (sends_secrets and per_name):
        return []
    message = (
        f"secrets are sent as one list, so ignore_changes on {', '.join(sorted(per_name))} "
        "cannot keep those values as they are; ignore `secrets` as a whole to leave them alone"
    )
    return [PlanWarning(name=desired.name, message=message)]
