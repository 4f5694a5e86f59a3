"""One Change per action: what is compared, what is shown, what is sent."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from planner.api.fields import REASONS, ChangeClass, classify
from planner.api.models import Deployment
from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.config.desired import DesiredDeployment
from planner.plan.body import create_request_body
from planner.plan.managed_fields import (
    creation_patch,
    desired_fields,
    observed_fields,
    observed_secrets,
    view,
    view_patch,
)
from planner.plan.model import (
    DRIFT_REASON,
    Action,
    Change,
    FieldChange,
    PlanProblem,
    built,
)
from planner.plan.paths import flatten, is_ignored
from planner.secrets import SENSITIVE, secret_digest
from planner.state.records import RecordedDeployment


def field_change(
    path: str, before: Any, after: Any, *, reason: str | None = None, drifted: bool = False
) -> FieldChange:
    change_class = classify(path)
    why = reason or REASONS[change_class]
    if drifted:
        why = f"{why}; {DRIFT_REASON}"
    # built from values of known types: no validation (a large plan has one per field)
    return built(
        FieldChange,
        path=path,
        change_class=change_class,
        before=before,
        after=after,
        reason=why,
        drifted=drifted,
    )


def secret_changes(
    desired: Mapping[str, str],
    observed: Mapping[str, str],
    *,
    ignore: Collection[str] = (),
    drifted: Collection[str] = (),
) -> list[FieldChange]:
    """Secrets added, removed or changed, by name; values never leave this function."""
    changes = []
    for name in sorted(set(desired) | set(observed)):
        path = f"secrets.{name}"
        if is_ignored(path, ignore) or desired.get(name) == observed.get(name):
            continue
        kind = "added" if name not in observed else "removed" if name not in desired else "changed"
        changes.append(
            field_change(
                path,
                SENSITIVE if name in observed else None,
                SENSITIVE if name in desired else None,
                reason=f"secret {kind}; {REASONS[ChangeClass.NEW_REVISION]}",
                drifted=path in drifted,
            )
        )
    return changes


def secret_digests(desired: DesiredDeployment, key: bytes) -> dict[str, str]:
    return {n: secret_digest(key, n, v) for n, v in sorted(desired.secret_values().items())}


def build_create(desired: DesiredDeployment, key: bytes, notes: list[str]) -> Change:
    managed = desired.managed()  # dumped once for the fields and the body
    want = desired_fields(desired, managed)
    fields = [
        field_change(path, None, value, reason="set at creation")
        for path, value in sorted(want.items())
        if value is not None
    ]
    fields += secret_changes(desired.secret_values(), {})
    after = view(want, desired.secrets)
    # Unvalidated (every value is built here, of the declared types): validation would
    # copy the view, patch and body of each of a large fleet's creates once more.
    return built(
        Change,
        name=desired.name,
        action=Action.CREATE,
        fields=fields,
        after=after,
        patch=creation_patch(after),
        notes=notes,
        request_body=create_request_body(desired, managed),
        send_secrets=True,
        secret_digests=secret_digests(desired, key),
    )


def build_delete(recorded: RecordedDeployment, observed: Deployment) -> Change:
    paths = [p for p in flatten(recorded.managed) if classify(p) is not ChangeClass.READ_ONLY]
    have = observed_fields(observed, paths)
    secrets = sorted(observed_secrets(observed)) if recorded.secret_digests else []
    fields = [
        field_change(path, value, None, reason="deleted with the deployment")
        for path, value in sorted(have.items())
        if value is not None
    ]
    fields += [
        field_change(f"secrets.{n}", SENSITIVE, None, reason="secret deleted") for n in secrets
    ]
    before = view(have, secrets)
    return Change(
        name=recorded.name,
        action=Action.DELETE,
        deployment_id=recorded.id,
        fields=fields,
        before=before,
        patch=view_patch(before, {}),
    )


def build_replace(
    desired: DesiredDeployment, recorded: RecordedDeployment, observed: Deployment, key: bytes
) -> Change:
    """Delete and create again: every desired field counts, ignore_changes included."""
    want = desired_fields(desired)
    have = observed_fields(observed, want)
    fields = [field_change(p, have[p], want[p]) for p in sorted(want) if have[p] != want[p]]
    seen_secrets = observed_secrets(observed) if desired.secrets else {}
    fields += secret_changes(desired.secret_values(), seen_secrets)
    before, after = view(have, seen_secrets), view(want, desired.secrets)
    changed = [f.path.removeprefix("secrets.") for f in fields if f.path.startswith("secrets.")]
    return Change(
        name=desired.name,
        action=Action.REPLACE,
        deployment_id=recorded.id,
        fields=fields,
        before=before,
        after=after,
        patch=view_patch(before, after, changed),
        notes=[
            f"replaced on request (--replace {desired.name}): deleted, then created again "
            "with a new id"
        ],
        request_body=create_request_body(desired),
        send_secrets=True,
        secret_digests=secret_digests(desired, key),
    )


def replace_first(
    change: Change, desired: DesiredDeployment, observed: Deployment
) -> tuple[Change, list[PlanProblem]]:
    """A replace under `lifecycle.create_before_destroy`: the new deployment is created
    before the old one is deleted, which only a new remote name allows (two deployments
    never share one)."""
    if not desired.lifecycle.create_before_destroy:
        return change, []
    if observed.name == desired.api_name:
        problem = PlanProblem(
            name=desired.name,
            path="lifecycle.create_before_destroy",
            message=f"{desired.name} cannot be created before the old one is deleted: its "
            f"remote name {desired.api_name!r} stays the same, and two deployments cannot "
            "share a name",
            hint=f"give [deployments.{desired.name}] a new name in the same change, or set "
            "lifecycle.create_before_destroy = false to delete it first",
        )
        return change, [problem]
    notes = [
        f"created first as {desired.api_name!r}; once its revision is deployed, the old "
        f"deployment {observed.name!r} is deleted (lifecycle.create_before_destroy)"
    ]
    return change.model_copy(update={"create_before_destroy": True, "notes": notes}), []


def action_for(fields: list[FieldChange]) -> Action:
    classes = {field.change_class for field in fields}
    if ChangeClass.NEW_REVISION in classes:
        return Action.NEW_REVISION
    if ChangeClass.IN_PLACE in classes:
        return Action.UPDATE
    return Action.NO_OP


def immutable_error(
    name: str,
    field: FieldChange,
    way_out: str | None = None,
    spelling: Spelling = SEED_SPELLING,
) -> PlanProblem:
    """NAME's FIELD cannot change in place: the hint is WAY_OUT (default: `--replace`,
    which deletes first; `planner.plan.collisions.replace_way_out`), or keeping the value;
    worded in SPELLING's words (its `path` stays the plan's)."""
    path = spelling.path(field.path)
    old = show(spelling.value(field.path, field.before))
    new = show(spelling.value(field.path, field.after))
    # a config cannot say null: an unset live value is kept by leaving the field out
    keep = f"set {path} back to {old}"
    if field.before is None:
        keep = f"leave {path} out of the config"
    if way_out is None:
        way_out = f"to delete and re-create {name} (it gets a new id), plan with --replace {name}"
    return PlanProblem(
        name=name,
        path=field.path,
        message=f"{path} cannot change after creation: {old} → {new}",
        hint=f"{way_out}; or {keep}",
    )


def show(value: Any) -> str:
    """A value as one line: JSON, except `(sensitive)` which prints bare; a whole float
    prints as the integer the config said (`cpu = 1` shows `1`, not `1.0`)."""
    if isinstance(value, str):  # most values: their JSON string, as `json.dumps` writes it
        return SENSITIVE if value == SENSITIVE else _json_string(value)
    return _SHOW.encode(whole_numbers(value))


# `json.dumps(value, sort_keys=True, ensure_ascii=False)`, without a new encoder per call
_SHOW = json.JSONEncoder(sort_keys=True, ensure_ascii=False)
_json_string = json.encoder.encode_basestring


def whole_numbers(value: Any) -> Any:
    """VALUE with every float that is a whole number as an int (tables and lists too)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value
