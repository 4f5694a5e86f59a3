"""The managed fields the diff compares: desired fields, observed fields, secrets masked.

The managed fields are those the config sets; a change's before and after views (what a
plan shows of it) are built from them here, with the secrets masked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from planner.api.fields import ChangeClass, classify
from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.paths import flatten, get_path, is_clearable, nest, normalize
from planner.secrets import SENSITIVE


def desired_fields(
    desired: DesiredDeployment, managed: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Field path -> normalized value for every field the config sets and can set
    (MANAGED: `desired.managed()`, when the caller has it already).

    Read-only fields are never planned, and a null the API cannot apply (outside
    `resource_spec` and `secret_references`) leaves the field unmanaged.
    """
    fields: dict[str, Any] = {}
    for path, raw in flatten(desired.managed() if managed is None else managed).items():
        value = normalize(raw)
        if classify(path) is ChangeClass.READ_ONLY:
            continue
        if value is None and not is_clearable(path):
            continue
        fields[path] = value
    return fields


def desired_raw(desired: DesiredDeployment, path: str) -> Any:
    """The value as the config wrote it (what a request sends, e.g. `[]` to clear)."""
    return get_path(desired.managed(), path)


def observed_doc(observed: Deployment) -> dict[str, Any]:
    """The observed deployment as wire JSON without nulls and without secrets."""
    return observed.model_dump(mode="json", exclude_none=True, exclude={"secrets"})


def observed_fields(observed: Deployment, paths: Iterable[str]) -> dict[str, Any]:
    """Path -> the normalized observed value of each of PATHS."""
    return {path: normalize(value) for path, value in observed_values(observed, paths).items()}


def observed_values(observed: Deployment, paths: Iterable[str]) -> dict[str, Any]:
    """Path -> `get_path(observed_doc(observed), path)` for each of PATHS, without dumping
    the deployment while every value is a scalar (read from the model's attributes, the
    same value as in the dump); it is dumped once for the first that is not."""
    values: dict[str, Any] = {}
    doc: dict[str, Any] | None = None
    for path in paths:
        value = _scalar_at(observed, path)
        if value is _DUMPED:
            doc = observed_doc(observed) if doc is None else doc
            value = get_path(doc, path)
        values[path] = value
    return values


_DUMPED = object()  # the value at a path is to be read from the dump
_PLAIN = frozenset({str, int, bool})  # their JSON dump is the value itself


def field_names(kind: type) -> frozenset[str]:
    """The fields of a model class (none for any other type), remembered per class."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        fields = kind.model_fields if issubclass(kind, BaseModel) else {}
        names = _FIELD_NAMES[kind] = frozenset(fields)
    return names


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def _scalar_at(observed: Deployment, path: str) -> Any:
    """The value at PATH of `observed_doc(observed)` when it is None or a plain scalar
    there (None: a null or missing field, which the dump leaves out), else `_DUMPED`."""
    node: Any = observed
    for part in path.split("."):
        if node is None:
            return None
        if part not in field_names(type(node)):
            return _DUMPED  # a free-form object or an unknown key: as the dump has it
        node = getattr(node, part)
    if path == "secrets" or path.startswith("secrets."):
        return _DUMPED  # not in the dump
    kind = type(node)
    if node is None or kind in _PLAIN or (kind is float and math.isfinite(node)):
        return node
    return _DUMPED


def observed_secrets(observed: Deployment) -> dict[str, str]:
    return {secret.name: secret.value for secret in observed.secrets}


def masked_secrets(names: Iterable[str]) -> list[dict[str, str]]:
    return [{"name": name, "value": SENSITIVE} for name in sorted(set(names))]


def view(fields: Mapping[str, Any], secret_names: Iterable[str] | None) -> dict[str, Any]:
    """The managed view document: the fields nested, secrets masked (None: unmanaged)."""
    return with_masked_secrets(nest(fields), secret_names)


def with_masked_secrets(doc: dict[str, Any], secret_names: Iterable[str] | None) -> dict[str, Any]:
    """DOC (a view's fields) with the secrets masked at its end (None: unmanaged)."""
    if secret_names is not None:
        masked = masked_secrets(secret_names)
        if masked:
            doc["secrets"] = masked
    return doc


def view_patch(
    before: dict[str, Any], after: dict[str, Any], changed_secrets: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """RFC 6902 ops from `before` to `after`, plus a masked replace per changed secret.

    A changed secret looks the same on both sides once masked, so the diff alone would
    hide it; the explicit (idempotent) replace op says that it changes.
    """
    # Most deployments of a large config are unchanged: no diff to compute for those (nor
    # jsonpatch to import: a no-change plan or an apply of creates never needs it).
    ops: list[dict[str, Any]] = []
    if before != after:
        import jsonpatch

        ops = list(jsonpatch.make_patch(before, after).patch)
    names = [entry["name"] for entry in after.get("secrets", [])]
    for name in sorted(changed_secrets):
        if name in names:
            index = names.index(name)
            ops.append({"op": "replace", "path": f"/secrets/{index}/value", "value": SENSITIVE})
    return ops


def creation_patch(after: dict[str, Any]) -> list[dict[str, Any]]:
    """`view_patch({}, after)` without a diff: one add per key, in AFTER's order, its value
    shared with AFTER (a plan's documents are never changed once built)."""
    return [
        {"op": "add", "path": f"/{_escaped(key)}", "value": value} for key, value in after.items()
    ]


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
