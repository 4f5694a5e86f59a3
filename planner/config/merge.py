"""`[defaults]` merged under a deployment: tables merge key by key, the deployment wins.

Lists (sidecars, volumes, ignore_changes, secret_references...) and scalars are replaced
as a whole, never concatenated: a deployment that sets a list owns the whole list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A new table: `base` with `override` laid over it, recursively for nested tables."""
    merged = dict(base)
    for key, value in override.items():
        below = merged.get(key)
        if below is not None and _is_table(below) and _is_table(value):
            merged[key] = deep_merge(below, value)
        else:
            merged[key] = value
    return merged


def _is_table(value: Any) -> bool:
    # a plain dict first: the ABC check costs several times more (every deployment)
    return type(value) is dict or isinstance(value, Mapping)
