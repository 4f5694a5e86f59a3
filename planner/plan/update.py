"""The three-way comparison of one deployment that exists in the config, state and server."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

from planner.api.fields import ChangeClass, UnknownFieldError, classify
from planner.api.models import Deployment
from planner.config.desired import NOT_MANAGED, DesiredDeployment
from planner.plan.body import patch_request_body
from planner.plan.changes import (
    action_for,
    field_change,
    immutable_error,
    secret_changes,
    secret_digests,
)
from planner.plan.collisions import Holder, replace_way_out
from planner.plan.managed_fields import (
    desired_fields,
    field_names,
    observed_fields,
    observed_secrets,
    observed_values,
    view,
    view_patch,
    with_masked_secrets,
)
from planner.plan.model import Action, Change, FieldChange, PlanProblem, PlanWarning, built
from planner.plan.paths import STRUCT_PATHS, flatten, is_ignored, nest, normalize
from planner.pydantic_internals import field_values
from planner.secrets import secret_digest
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
    holder: Holder | None = None,
    command_args: Sequence[str] = (),
) -> UpdateOutcome:
    """Desired against observed, on the fields the config sets, leaving ignored ones alone.
    HOLDER: who holds the new remote name, if the config renames it (no `--replace` then);
    COMMAND_ARGS: the options the commands the errors suggest repeat."""
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
    immutable = [f for f in fields if f.change_class is ChangeClass.IMMUTABLE]
    way_out = replace_way_out(desired, observed, holder, command_args) if immutable else None
    errors = [immutable_error(desired.name, f, way_out, desired.spelling) for f in immutable]
    return UpdateOutcome(change, errors, _secret_warnings(desired, bool(secret_fields)))


def unchanged(
    desired: DesiredDeployment,
    recorded: RecordedDeployment,
    observed: Deployment,
    key: bytes,
    seen: SeenParts | None = None,
) -> Change | None:
    """The no-op change of a deployment whose config, record and live values agree, found
    by comparing the fields the config sets once; None: compare in full (`build_update`,
    and drift), which gives the same change when nothing differs.

    It answers only where the full comparison provably has nothing to add: no
    ignore_changes, the record holding exactly the config's values (so no drift and no
    released field is possible once the live values equal them), every value set (no
    null or empty one the comparison would leave out) and the secrets the same on all
    three sides. Anything else takes the full path. SEEN: what one plan remembers of the
    parts it compared (`SeenParts`), None: nothing.
    """
    if desired.lifecycle.ignore_changes:
        return None
    digests = _unchanged_secrets(desired, recorded, observed, key)
    if digests is None:
        return None
    doc = _agreed_view(*_managed_values(desired), recorded.managed, observed, seen=seen)
    if doc is _NOT_PLAIN:
        managed = desired.managed()
        doc = None if recorded.managed != managed else _general_view(managed, observed)
    if doc is None:
        return None
    shown = with_masked_secrets(doc, sorted(digests) if desired.secrets else None)
    # unvalidated (every value is made here, of the declared types): a large fleet's no-op
    # changes share their one view, their empty lists and the set of given names
    return built(
        Change,
        name=desired.name,
        action=Action.NO_OP,
        deployment_id=recorded.id,
        fields=_NONE,
        patch=_NONE,
        before=shown,
        after=shown,
        notes=_NONE,
        request_body=_NOTHING,
        secret_digests=digests or _NOTHING,
    )


# The empty values no-op changes share (a plan is never changed once made).
_NONE: list[Any] = []
_NOTHING: dict[str, Any] = {}


_NOT_PLAIN: Any = object()  # a field of another kind than a plain scalar
_SCALARS = frozenset({str, int, bool})  # in the wire dump as they are (a float too if finite)


def _managed_values(desired: DesiredDeployment) -> tuple[Mapping[str, Any], Collection[str]]:
    """The attributes of DESIRED and the names of those `managed()` dumps (its given
    fields but the address and secrets; the remote name as `name`)."""
    names = desired.model_fields_set - NOT_MANAGED
    if desired.remote_name is None:
        return field_values(desired), names
    values = {name: getattr(desired, name) for name in names}
    values["name"] = desired.remote_name
    return values, values.keys()


def _agreed_view(
    values: Mapping[str, Any],
    names: Collection[str],
    recorded: Any,
    live: BaseModel,
    prefix: str = "",
    seen: SeenParts | None = None,
) -> Any:
    """`_general_view` of the managed fields (NAMES of VALUES: a model's given fields),
    when RECORDED holds them (the record is the config) and each is a plain scalar, LIVE's
    value of it one too or null: compared and shown as they are (keys sorted), read from
    the models' attributes, no dump. `_NOT_PLAIN`: another kind was met. SEEN: the last
    answer for a part at each prefix, given again for the same parts of the config and
    of the live deployment (a config's defaults and a listing's alike parts are shared)
    with a record equal to the last one's: the answer reads nothing else.

    What each key's check needs to know of its path and of LIVE's class is worked out
    once per shape (`_steps`); the checks run in the order of the keys, as they read."""
    if type(recorded) is not dict:
        return _NOT_PLAIN
    if len(recorded) != len(names):
        return None  # the record holds other fields than the config sets
    doc: dict[str, Any] = {}
    for key, path, is_struct, is_listed, is_secrets, read_only in _steps(
        frozenset(names), type(live), prefix
    ):
        value = values[key]
        if key not in recorded:
            return None
        if is_struct and isinstance(value, BaseModel):
            inner = getattr(live, key) if is_listed else None
            if inner is None or not field_names(type(inner)):
                return _NOT_PLAIN
            nested = _part_view(value, recorded[key], inner, path + ".", seen)
            if nested is None or nested is _NOT_PLAIN:
                return nested
            if nested:
                doc[key] = nested
            continue
        if type(value) not in _SCALARS:
            if isinstance(value, Enum):
                value = value.value  # as the wire dump has it
            if not _is_plain(value):
                return _NOT_PLAIN
        got = getattr(live, key) if is_listed else _NOT_PLAIN
        if is_secrets or not (got is None or type(got) in _SCALARS or _is_plain(got)):
            return _NOT_PLAIN
        # read-only not known (None): the path is asked about, and raises, as it always was
        if (
            recorded[key] != value
            or got != value
            or (_is_read_only(path) if read_only is None else read_only)
        ):
            return None
        doc[key] = value
    return doc


# Per prefix, the last part compared: (config part, live part, record, answer).
SeenParts = dict[str, tuple[BaseModel, BaseModel, Any, Any]]


def _part_view(
    value: BaseModel, recorded: Any, live: BaseModel, prefix: str, seen: SeenParts | None
) -> Any:
    """`_agreed_view` of the config's part VALUE at PREFIX, LIVE's part and the record's."""
    last = None if seen is None else seen.get(prefix)
    if last is not None and last[0] is value and last[1] is live and last[2] == recorded:
        return last[3]
    nested = _agreed_view(field_values(value), value.model_fields_set, recorded, live, prefix, seen)
    if seen is not None:
        seen[prefix] = (value, live, recorded, nested)
    return nested


# One key's check: (key, path, a struct path?, a field of the live class?, the secrets?,
# read-only? (None: not known, `classify` is asked when the key is reached, as it raises
# for a path no entry covers))
_Step = tuple[str, str, bool, bool, bool, bool | None]
_STEPS: dict[tuple[frozenset[str], type, str], tuple[_Step, ...]] = {}


def _steps(names: frozenset[str], live: type, prefix: str) -> tuple[_Step, ...]:
    """The checks of `_agreed_view` for the given NAMES of one level at PREFIX against a
    live model of class LIVE, in key order (remembered: a fleet has few shapes)."""
    steps = _STEPS.get((names, live, prefix))
    if steps is None:
        listed = field_names(live)
        steps = _STEPS[names, live, prefix] = tuple(
            _step(key, prefix + key, key in listed) for key in sorted(names)
        )
    return steps


def _step(key: str, path: str, is_listed: bool) -> _Step:
    return key, path, path in STRUCT_PATHS, is_listed, path == "secrets", _read_only(path)


def _read_only(path: str) -> bool | None:
    try:
        return _is_read_only(path)
    except UnknownFieldError:
        return None


def _is_read_only(path: str) -> bool:
    return classify(path) is ChangeClass.READ_ONLY


def _is_plain(value: Any) -> bool:
    kind = type(value)
    return kind in _SCALARS or (kind is float and math.isfinite(value))


def _general_view(managed: dict[str, Any], observed: Deployment) -> dict[str, Any] | None:
    """The view of MANAGED's fields when every one is set (no null or empty value), none is
    read-only and the live value of each equals it; None otherwise."""
    wanted = flatten(managed)
    fields: dict[str, object] = {}
    for path, value in wanted.items():
        fields[path] = normalize(value)
        if fields[path] is None or classify(path) is ChangeClass.READ_ONLY:
            return None
    if observed_values(observed, wanted) != wanted:
        return None
    return nest(fields)


def _unchanged_secrets(
    desired: DesiredDeployment, recorded: RecordedDeployment, observed: Deployment, key: bytes
) -> dict[str, str] | None:
    """The digests a no-op change carries when the config's secrets, the recorded digests
    and the live secrets agree (none anywhere: {}); None when they may not."""
    if not desired.secrets:
        return None if recorded.secret_digests else {}
    values = desired.secret_values()
    if observed_secrets(observed) != values:
        return None
    digests = {name: secret_digest(key, name, value) for name, value in sorted(values.items())}
    return digests if digests == recorded.secret_digests else None


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
