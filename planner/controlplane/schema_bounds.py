"""The value bounds the server enforces, written into its OpenAPI document.

The server refuses (422) integers outside 64 bits, strings over `MAX_STRING_LENGTH`
characters and resource numbers below their minimum or above `RESOURCE_MAXIMUM`
(`planner.api.values`, `planner.api.rules`); the document says so, so a schema-valid
request is one the server accepts. That holds inside the free-form objects too (a
sidecar's `envFrom`, labels): their values are `JsonValue`, the same bounds all the way
down.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from planner.api.rules import RESOURCE_MAXIMUM, SECRET_NAME_PATTERN, resource_minimums
from planner.api.values import INT64_MAX, INT64_MIN, MAX_JSON_DEPTH, MAX_STRING_LENGTH

Schema = dict[str, Any]


JSON_VALUE = "JsonValue"
JSON_VALUE_REF = {"$ref": f"#/components/schemas/{JSON_VALUE}"}
KEYS: Schema = {"maxLength": MAX_STRING_LENGTH}
# Any JSON value the server stores (`planner.api.values`). Nesting past MAX_JSON_DEPTH is
# refused too (422).
JSON_VALUE_SCHEMA: Schema = {
    "title": JSON_VALUE,
    "description": "Any JSON value: numbers within 64-bit integer bounds, strings and keys "
    f"of at most {MAX_STRING_LENGTH} characters, nested at most {MAX_JSON_DEPTH} levels "
    "from the body.",
    # One schema, not an anyOf of one branch per type: each keyword applies to its own type.
    "type": ["null", "boolean", "number", "string", "array", "object"],
    "minimum": INT64_MIN,
    "maximum": INT64_MAX,
    "maxLength": MAX_STRING_LENGTH,
    "items": JSON_VALUE_REF,
    "additionalProperties": JSON_VALUE_REF,
    "propertyNames": KEYS,
}


def install_value_bounds(schemas: dict[str, Schema]) -> None:
    """Bound every integer and string of the components, the values of free-form objects,
    resource_spec's numbers, and secret names (environment variable names)."""
    for schema in schemas.values():
        for node in _nodes(schema):
            _bound(node)
            if node.get("type") == "object" and node.get("additionalProperties") is True:
                node.update(additionalProperties=JSON_VALUE_REF, propertyNames=KEYS)
    schemas[JSON_VALUE] = copy.deepcopy(JSON_VALUE_SCHEMA)
    secret_name = schemas["Secret"]["properties"]["name"]
    secret_name["pattern"] = SECRET_NAME_PATTERN
    spec = schemas["ResourceSpec"]["properties"]
    for name, (kind, bound) in resource_minimums().items():
        for node in _nodes(spec[name]):
            if node.get("type") in ("integer", "number"):
                node[kind] = bound
                node["maximum"] = RESOURCE_MAXIMUM


def _bound(node: Schema) -> None:
    if node.get("type") in ("integer", "number"):
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
