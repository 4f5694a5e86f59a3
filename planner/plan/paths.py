"""Dotted field paths over wire JSON: flatten, look up, build, normalize, ignore.

A *field* is the unit the planner compares: a key of the deployment, of `source_config`,
of `source_revision_config` or of `resource_spec`. Anything below a field (a label, a
container of `sidecars`, `listener_config.k8s_namespace`) is part of its field's value and
compared whole.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

RESOURCE_SPEC = "source_config.resource_spec"
STRUCT_PATHS = frozenset({"source_config", "source_revision_config", RESOURCE_SPEC})
# Fields the API can clear: resource_spec is replaced wholesale, `secret_references: []`
# clears; any other null in a PATCH is ignored, so the config cannot unset it.
CLEARABLE_PREFIXES = (RESOURCE_SPEC + ".", "secret_references")
# The JSON scalars: immutable, each its own deep copy.
ATOMIC = frozenset({str, int, float, bool, type(None)})


def flatten(doc: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Field path -> value for every field set in a wire JSON document."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        path = f"{prefix}.{key}" if prefix else key
        if path in STRUCT_PATHS and isinstance(value, Mapping):
            out.update(flatten(value, path))
        else:
            out[path] = value
    return out


def get_path(doc: Mapping[str, Any] | None, path: str) -> Any:
    """The value at a dotted path, None when any part is missing."""
    node: Any = doc
    for part in path.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path, creating the objects on the way."""
    *parents, last = path.split(".")
    node = doc
    for part in parents:
        node = node.setdefault(part, {})
    # a scalar is its own deep copy: no call of deepcopy for each of a large plan's values
    node[last] = value if type(value) in ATOMIC else copy.deepcopy(value)


def nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """The document of a path -> value mapping, leaving out None values."""
    doc: dict[str, Any] = {}
    for path in sorted(flat):
        if flat[path] is not None:
            set_path(doc, path, flat[path])
    return doc


def normalize(value: Any) -> Any:
    """The comparable form of a JSON value: nulls dropped, empty lists/objects are None.

    The server fills unset keys with null and may answer `[]` for nothing, so neither
    may make a difference on its own.
    """
    if isinstance(value, Mapping):
        items = {key: normalize(item) for key, item in value.items()}
        kept = {key: item for key, item in items.items() if item is not None}
        return kept or None
    if isinstance(value, list):
        return [normalize(item) for item in value] or None
    return value


def is_clearable(path: str) -> bool:
    return path.startswith(CLEARABLE_PREFIXES)


def is_ignored(path: str, ignore_changes: Iterable[str]) -> bool:
    """Whether a field is covered by `lifecycle.ignore_changes` (above, at or below it)."""
    return any(
        path == ignored or path.startswith(ignored + ".") or ignored.startswith(path + ".")
        for ignored in ignore_changes
    )
