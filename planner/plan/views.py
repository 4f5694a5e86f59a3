"""The managed views the diff compares: desired fields, observed fields, secrets masked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import jsonpatch

from planner.api.fields import ChangeClass, classify
from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.paths import flatten, get_path, is_clearable, nest, normalize
from planner.secrets import SENSITIVE


def desired_fields(desired: DesiredDeployment) -> dict[str, Any]:
    """Field path -> normalized value for every field the config sets and can set.

    Read-only fields are never planned, and a null the API cannot apply (outside
    `resource_spec` and `secret_references`) leaves the field unmanaged.
    """
    fields: dict[str, Any] = {}
    for path, raw in flatten(desired.managed()).items():
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
    doc = observed_doc(observed)
    return {path: normalize(get_path(doc, path)) for path in paths}


def observed_secrets(observed: Deployment) -> dict[str, str]:
    return {secret.name: secret.value for secret in observed.secrets}


def masked_secrets(names: Iterable[str]) -> list[dict[str, str]]:
    return [{"name": name, "value": SENSITIVE} for name in sorted(set(names))]


def view(fields: Mapping[str, Any], secret_names: Iterable[str] | None) -> dict[str, Any]:
    """The managed view document: the fields nested, secrets masked (None: unmanaged)."""
    doc = nest(fields)
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
    # Most deployments of a large config are unchanged: no diff to compute for those.
    ops: list[dict[str, Any]] = (
        [] if before == after else list(jsonpatch.make_patch(before, after).patch)
    )
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
