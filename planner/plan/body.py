"""The requests a planned change sends: bodies built at plan time, secrets added at apply.

PATCH semantics (PRODUCT.md) shape the body: nulls are ignored, so only changed fields are
sent; a non-null `resource_spec` replaces the stored spec wholesale, so the whole spec is
sent (observed, keys no model knows included, overlaid with the planned fields);
`secrets` is sent whole, and only when a secret changes; `secret_references: []` clears
them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from planner.api.fields import ChangeClass
from planner.api.models import Deployment, DeploymentPatch
from planner.api.unknown import READ_EXTRA, with_unknown
from planner.config.desired import DesiredDeployment
from planner.plan.managed_fields import desired_raw
from planner.plan.model import Action, Change, FieldChange
from planner.plan.paths import RESOURCE_SPEC, normalize, set_path
from planner.secrets import secret_digest

_CREATE_ACTIONS = (Action.CREATE, Action.REPLACE)
_PATCH_ACTIONS = (Action.UPDATE, Action.NEW_REVISION)


def create_request_body(
    desired: DesiredDeployment, managed: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The POST body without secrets: the name and every field the config sets
    (MANAGED: `desired.managed()`, when the caller has it already)."""
    return {"name": desired.api_name, **(desired.managed() if managed is None else managed)}


def patch_request_body(
    desired: DesiredDeployment, observed: Deployment, fields: Iterable[FieldChange]
) -> dict[str, Any]:
    """The PATCH body without secrets for the changed (non-immutable) fields."""
    body: dict[str, Any] = {}
    spec_changes: list[str] = []
    for field in fields:
        if field.change_class is ChangeClass.IMMUTABLE or field.path.startswith("secrets."):
            continue
        if field.path.startswith(RESOURCE_SPEC + "."):
            spec_changes.append(field.path)
        elif field.path == "secret_references":
            body["secret_references"] = desired_raw(desired, field.path) or []
        else:
            set_path(body, field.path, desired_raw(desired, field.path))
    if spec_changes:
        set_path(body, RESOURCE_SPEC, merged_spec(desired, observed, spec_changes))
    return body


def merged_spec(
    desired: DesiredDeployment, observed: Deployment, paths: Iterable[str]
) -> dict[str, Any]:
    """The observed resource_spec with the planned fields laid over it: every key the
    server sent, those no model knows included (`with_unknown`), unless the config
    manages it."""
    spec = observed.source_config.resource_spec
    merged = with_unknown(spec) if spec is not None else {}
    for path in paths:
        key = path[len(RESOURCE_SPEC) + 1 :]
        value = desired_raw(desired, path)
        if normalize(value) is None:
            merged.pop(key, None)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def planned_patch_body(
    change: Change, secret_values: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The PATCH body of an update/new_revision; secrets (the whole desired list) when
    any changed, taken from `secret_values` (which apply checks against the plan's
    digests first: `planner.plan.stale.secret_moves`)."""
    if change.action not in _PATCH_ACTIONS:
        raise ValueError(f"{change.name}: a {change.action.value} change sends no PATCH")
    body = copy.deepcopy(change.request_body)
    if change.send_secrets:
        body["secrets"] = _secret_list(change, secret_values or {})
    return body


def planned_patch(
    change: Change, secret_values: Mapping[str, str] | None = None
) -> DeploymentPatch:
    """`planned_patch_body` as the PATCH the client sends: validated, the keys no model
    knows (the observed resource_spec's) kept for the client to send back."""
    return DeploymentPatch.model_validate(
        planned_patch_body(change, secret_values), extra=READ_EXTRA
    )


def planned_create_body(
    change: Change, secret_values: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The POST body of a create/replace, with the desired secrets (possibly none)."""
    if change.action not in _CREATE_ACTIONS:
        raise ValueError(f"{change.name}: a {change.action.value} change sends no POST")
    # a copy of the top level only: the caller validates it into a new model, and the
    # change's body is never changed (a deep copy cost each of a fleet's creates 5 us)
    body = dict(change.request_body)
    body["secrets"] = _secret_list(change, secret_values or {})
    return body


def _secret_list(change: Change, values: Mapping[str, str]) -> list[dict[str, str]]:
    missing = sorted(set(change.secret_digests) - set(values))
    if missing:
        raise ValueError(f"{change.name}: no value for secrets {', '.join(missing)}")
    return [{"name": name, "value": values[name]} for name in sorted(change.secret_digests)]


def moved_secrets(change: Change, secret_values: Mapping[str, str], key: bytes) -> list[str]:
    """The names of the secrets whose value (keyed digest) differs from the plan's."""
    digests = {name: secret_digest(key, name, v) for name, v in secret_values.items()}
    return sorted(
        name
        for name in set(change.secret_digests) | set(digests)
        if change.secret_digests.get(name) != digests.get(name)
    )
