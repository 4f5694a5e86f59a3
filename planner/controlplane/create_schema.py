"""The create body of the OpenAPI document, one variant per source, from the server's rules.

The wire model `DeploymentCreate` is shared with the client and stays loose; what the
server accepts is narrower (`planner.api.rules`, `planner.controlplane.validation`).
So the document describes a create as a `oneOf` discriminated by `source`, built from
the same tables the server checks with: only the sources of the server's mode; a field
of another source must be null; the fields a complete create needs are required,
non-empty strings; the name follows `NAME_PATTERN`; and git_host's `build_on_push`
cannot be true beside a tag `repo_ref`. Only duplicate secret names stay unsaid (JSON
Schema cannot compare items by one key).
"""

from __future__ import annotations

import copy
from typing import Any

from planner.api.rules import (
    FIELD_SOURCES,
    NAME_MAX_LENGTH,
    NAME_PATTERN,
    REQUIRED_FIELDS,
    SOURCES_BY_MODE,
    Mode,
)
from planner.api.vocabulary import GIT_SOURCE
from planner.controlplane.validation import COMPLETE_ON_CREATE

Schema = dict[str, Any]
SECTIONS = {"source_config": "SourceConfig", "source_revision_config": "SourceRevisionConfig"}
REF_PREFIX = "#/components/schemas/"
# git_host: `build_on_push: true` beside a `refs/tags/...` repo_ref (see rules._check_tag_ref).
TAG_BUILD_ON_PUSH: Schema = {
    "required": ["source_config", "source_revision_config"],
    "properties": {
        "source_config": {
            "required": ["build_on_push"],
            "properties": {"build_on_push": {"const": True}},
        },
        "source_revision_config": {
            "required": ["repo_ref"],
            "properties": {"repo_ref": {"type": "string", "pattern": "^refs/tags/"}},
        },
    },
}


def variant_name(source: str) -> str:
    return f"DeploymentCreate_{source}"


def install_create_variants(schemas: dict[str, Schema], mode: Mode) -> None:
    """Replace `DeploymentCreate` in `schemas` (the document's components) by the variants."""
    base = schemas["DeploymentCreate"]
    sources = sorted(SOURCES_BY_MODE[Mode(mode)])
    for source in sources:
        schemas[variant_name(source)] = create_variant(base, schemas, source)
    refs = {source: REF_PREFIX + variant_name(source) for source in sources}
    schemas["DeploymentCreate"] = {
        "title": "DeploymentCreate",
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "source", "mapping": refs},
    }


def create_variant(base: Schema, schemas: dict[str, Schema], source: str) -> Schema:
    """What a create of `source` must look like for the server to accept it."""
    required = _required_fields(source)
    variant = copy.deepcopy(base)
    variant["title"] = variant_name(source)
    properties = variant["properties"]
    properties["source"] = {"type": "string", "enum": [source]}
    properties["name"] = {
        **properties["name"],
        "pattern": NAME_PATTERN,
        "maxLength": NAME_MAX_LENGTH,
    }
    for section, component in SECTIONS.items():
        properties[section] = source_section(schemas[component], section, source, required)
        if any(loc[0] == section for loc in required):
            variant["required"] = [*variant["required"], section]
    restrict_to_source(variant, source)
    return variant


def restrict_to_source(variant: Schema, source: str) -> None:
    """The rules of `source` beyond its sections: no secret_references unless it takes
    them, and git_host's `build_on_push` not true beside a tag `repo_ref`."""
    if source not in FIELD_SOURCES[("secret_references",)]:
        variant["properties"]["secret_references"] = {
            "anyOf": [{"type": "array", "maxItems": 0}, {"type": "null"}]
        }
    if source == GIT_SOURCE:
        variant["not"] = TAG_BUILD_ON_PUSH


def _required_fields(source: str) -> set[tuple[str, str]]:
    return set(REQUIRED_FIELDS[source]) if source in COMPLETE_ON_CREATE else set()


def source_section(
    component: Schema, section: str, source: str, required: set[tuple[str, str]]
) -> Schema:
    """One of `SECTIONS` for `source`: foreign fields null, required ones non-empty
    (the PATCH body's variants, `patch_schema`, use it with none required)."""
    schema = copy.deepcopy(component)
    schema["title"] = f"{component['title']} ({source})"
    properties: dict[str, Schema] = schema["properties"]
    for field, field_schema in properties.items():
        owners = FIELD_SOURCES.get((section, field))
        if owners is not None and source not in owners:
            properties[field] = {"type": "null"}
        elif (section, field) in required:
            properties[field] = {**non_null(field_schema), "minLength": 1}
    names = sorted(field for sec, field in required if sec == section)
    if names:
        schema["required"] = names
    return schema


def non_null(field_schema: Schema) -> Schema:
    """The non-null branch of a pydantic `X | None` field schema."""
    branches = [b for b in field_schema.get("anyOf", [field_schema]) if b != {"type": "null"}]
    return dict(branches[0])
