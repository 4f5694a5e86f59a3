"""The PATCH body of the OpenAPI document: the fields of one source at a time.

The unmodifiable fields (`name`, `source`, and the immutable `source_config` fields of
`planner.api.fields`) are `readOnly` here: a client does not send them, and a PATCH that
sends one with another value than the deployment's is refused with 400 `{detail}` (the
same value is a tolerated no-op). Without `source`, a body names no source, so it is an
`anyOf` of one variant per source of the server's mode, not a discriminated `oneOf`: each
variant nulls every field of another source
(`planner.controlplane.create_schema.source_section`). A body mixing the fields of two
sources matches none and is refused with 422, as
`planner.controlplane.validation.patch_source_problems` does. Which variant applies
depends on the stored deployment: a body of another source than the deployment's
conflicts with the resource's state and is a 409 `{detail}`.
"""

from __future__ import annotations

import copy
from typing import Any

from planner.api.fields import ChangeClass, classify
from planner.api.rules import REQUIRED_FIELDS, SOURCES_BY_MODE, Mode
from planner.controlplane.create_schema import (
    REF_PREFIX,
    SECTIONS,
    non_null,
    restrict_to_source,
    source_section,
)
from planner.controlplane.validation import COMPLETE_ON_CREATE

Schema = dict[str, Any]
PATCH_COMPONENT = "PatchBody"
UNMODIFIABLE = "Unmodifiable: not sent in a PATCH (another value than the deployment's is 400)."


def variant_name(source: str) -> str:
    return f"{PATCH_COMPONENT}_{source}"


def install_patch_variants(schemas: dict[str, Schema], mode: Mode) -> None:
    """Replace `PatchBody` in `schemas` (the document's components) by the variants."""
    base = schemas[PATCH_COMPONENT]
    sources = sorted(SOURCES_BY_MODE[Mode(mode)])
    for source in sources:
        schemas[variant_name(source)] = patch_variant(base, schemas, source)
    schemas[PATCH_COMPONENT] = {
        "title": PATCH_COMPONENT,
        "description": base.get("description", ""),
        "anyOf": [{"$ref": REF_PREFIX + variant_name(source)} for source in sources],
    }


def patch_variant(base: Schema, schemas: dict[str, Schema], source: str) -> Schema:
    """What a PATCH of a `source` deployment may carry, whatever its stored values."""
    variant = copy.deepcopy(base)
    variant["title"] = variant_name(source)
    properties = variant["properties"]
    for key in ("name", "source"):
        properties[key] = _read_only(properties[key])
    for section, component in SECTIONS.items():
        branch = source_section(schemas[component], section, source, set())
        _restrict_fields(branch, section, source)
        properties[section] = {"anyOf": [branch, {"type": "null"}]}
    restrict_to_source(variant, source)
    return variant


def _restrict_fields(branch: Schema, section: str, source: str) -> None:
    """Immutable fields read-only; a field the source requires never emptied."""
    fields: dict[str, Schema] = branch["properties"]
    required = REQUIRED_FIELDS[source] if source in COMPLETE_ON_CREATE else []
    for field, schema in fields.items():
        if classify(f"{section}.{field}") is ChangeClass.IMMUTABLE:
            fields[field] = _read_only(schema)
        elif (section, field) in required:
            fields[field] = {"anyOf": [{**non_null(schema), "minLength": 1}, {"type": "null"}]}


def _read_only(schema: Schema) -> Schema:
    return {**schema, "readOnly": True, "description": UNMODIFIABLE}
