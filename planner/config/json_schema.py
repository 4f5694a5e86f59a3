"""The JSON Schema of the config file, for editors (TOML and JSON completion) and docs.

Generated from the config models, then tightened to match what the loader accepts:
no nulls, unknown keys forbidden everywhere, response-only fields left out, numeric
bounds and `ignore_changes` paths spelled out, and descriptions on the wire fields. The
words the two dialects spell differently (`planner.api.vocabulary`) are accepted either
way, and a table that spells one field both ways is not.
"""

from __future__ import annotations

from typing import Any

from planner.api.fields import read_only_keys
from planner.api.models import ResourceSpec
from planner.api.vocabulary import (
    RESOURCE_SPEC_KEYS,
    REVISION_CONFIG_KEYS,
    SOURCE_WORDS,
    service_path,
)
from planner.config.checks import ignorable_paths
from planner.config.json_schema_docs import FIELD_DOCS, resource_spec_doc
from planner.config.models import ConfigFile

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://planner.invalid/schemas/config.schema.json"


def config_schema() -> dict[str, Any]:
    """The config file's JSON Schema (draft 2020-12), deterministic for a given codebase."""
    schema = ConfigFile.model_json_schema(by_alias=True)
    _tighten(schema)
    defs = schema["$defs"]
    for name, definition in defs.items():
        if "properties" in definition:
            definition.setdefault("additionalProperties", False)
        _describe(name, definition)
    for key in read_only_keys("source_revision_config"):  # the service sets them
        defs["SourceRevisionConfig"]["properties"].pop(key)
    _bound_resource_numbers(defs["ResourceSpec"]["properties"])
    paths = sorted(
        {spelled for path in ignorable_paths() for spelled in (path, service_path(path))}
    )
    defs["Lifecycle"]["properties"]["ignore_changes"]["items"] = {"enum": paths}
    _either_spelling(defs)
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "planner config",
        "description": "Deployments for `planner` (TOML or JSON). See docs/guides/config.md.",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def _tighten(node: Any) -> None:
    """Drop null alternatives and null defaults; close pattern-keyed objects."""
    if isinstance(node, list):
        for item in node:
            _tighten(item)
        return
    if not isinstance(node, dict):
        return
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        options.remove({"type": "null"})
        if len(options) == 1:
            del node["anyOf"]
            node.update(options[0])
    if "default" in node and node["default"] is None:
        del node["default"]
    if "patternProperties" in node:
        node.setdefault("additionalProperties", False)
    for value in node.values():
        _tighten(value)


def _describe(name: str, definition: dict[str, Any]) -> None:
    docs = FIELD_DOCS.get(name, {})
    for field, prop in definition.get("properties", {}).items():
        text = docs.get(field) or (resource_spec_doc(field) if name == "ResourceSpec" else None)
        if text and "description" not in prop:
            prop["description"] = text


def _bound_resource_numbers(properties: dict[str, Any]) -> None:
    """Mirror the loader: numbers are non-negative, CPU values strictly positive."""
    for field, info in ResourceSpec.model_fields.items():
        if info.annotation not in (int | None, float | None):
            continue
        bound = "exclusiveMinimum" if "cpu" in field else "minimum"
        properties[field][bound] = 0


def _either_spelling(defs: dict[str, Any]) -> None:
    """The service's words beside the seed's: `source` values, and the keys of
    `source_revision_config` and `resource_spec`, each pair exclusive."""
    source = defs["Source"]["enum"]
    for seed, service in SOURCE_WORDS:
        source.insert(source.index(seed) + 1, service)
    for name, pairs in (
        ("SourceRevisionConfig", REVISION_CONFIG_KEYS),
        ("ResourceSpec", RESOURCE_SPEC_KEYS),
    ):
        definition = defs[name]
        service_of = dict(pairs)
        spelled = {}
        for key, prop in definition["properties"].items():
            spelled[key] = prop
            if key in service_of:
                text = f"{prop.get('description', key)}; the service's word for {key}"
                spelled[service_of[key]] = {**prop, "description": text}
        definition["properties"] = spelled
        definition["allOf"] = [{"not": {"required": list(pair)}} for pair in pairs]
