"""The value bounds the server enforces, written into its OpenAPI document.

The server refuses (422) integers outside 64 bits, strings over `MAX_STRING_LENGTH`
characters and resource numbers below their minimum or above `RESOURCE_MAXIMUM`
(`planner.api.values`, `planner.api.rules`); the document says so, so a schema-valid
request is one the server accepts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from planner.api.rules import RESOURCE_MAXIMUM, SECRET_NAME_PATTERN, resource_minimums
from planner.api.values import INT64_MAX, INT64_MIN, MAX_STRING_LENGTH

Schema = dict[str, Any]


def install_value_bounds(schemas: dict[str, Schema]) -> None:
    """Bound every integer and string of the components, resource_spec's numbers, and
    secret names (environment variable names)."""
    for schema in schemas.values():
        for node in _nodes(schema):
            _bound(node)
    secret_name = schemas["Secret"]["properties"]["name"]
    secret_name["pattern"] = SECRET_NAME_PATTERN
    spec = schemas["ResourceSpec"]["properties"]
    for name, (kind, bound) in resource_minimums().items():
        for node in _nodes(spec[name]):
            if node.get("type") in ("integer", "number"):
                node[kind] = bound
                node["maximum"] = RESOURCE_MAXIMUM


def _bound(node: Schema) -> None:
    if node.get("type") == "integer":
        node["minimum"] = max(node.get("minimum", INT64_MIN), INT64_MIN)
        node["maximum"] = min(node.get("maximum", INT64_MAX), INT64_MAX)
    elif node.get("type") == "string" and not {"enum", "const", "format"} & node.keys():
        node["maxLength"] = min(node.get("maxLength", MAX_STRING_LENGTH), MAX_STRING_LENGTH)


def _nodes(schema: Any) -> Iterator[Schema]:
    """Every schema object inside SCHEMA (itself included), without recursion."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            yield node
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
