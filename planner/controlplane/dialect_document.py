"""The served OpenAPI document in the service dialect.

The document is built from the routes and the seed's models (`planner.controlplane.
openapi`); in the service dialect it is then rewritten to say what that server does:
every word of the vocabulary table in the service's spelling (enum values, property
names, required lists, schema names and their references, descriptions), and the facts
of `planner.controlplane.service_rules` and `planner.controlplane.dialect` (the create's
required keys, the PATCH's `revision_source`, a conflict answered 400, any revision
status in the revision list's filter).

Either dialect names itself in `info.x-planner-dialect` (`seed` or `service`); the
`Source` schema's enum (`git_host` or `github`) says the same to a reader that does not
know that key.
"""

from __future__ import annotations

import re
from typing import Any

from planner.api.values import MAX_STRING_LENGTH
from planner.api.vocabulary import Dialect, seed_word, service_word, translate_text
from planner.controlplane.create_schema import non_null
from planner.controlplane.dialect import CONFLICT_AS_BAD_REQUEST
from planner.controlplane.service_rules import (
    CPU_BOUNDS,
    CREATE_REQUIRED,
    NON_NULL_STRINGS,
    REQUIRED_STRINGS,
    STRING_MAPS,
    service_revision_sources,
)

Schema = dict[str, Any]
DIALECT_KEY = "x-planner-dialect"


def name_dialect(document: Schema, dialect: Dialect) -> None:
    document["info"][DIALECT_KEY] = dialect.value


def service_document(document: Schema) -> Schema:
    """DOCUMENT (the seed dialect's) as the service dialect serves it (a new value)."""
    translated: Schema = _in_service_words(document)
    name_dialect(translated, Dialect.SERVICE)
    schemas: dict[str, Schema] = translated["components"]["schemas"]
    for name, schema in schemas.items():
        if name.startswith("DeploymentCreate_"):
            schema["required"] = [*schema["required"], *CREATE_REQUIRED]
        elif name.startswith("PatchBody_"):
            _service_patch(schema)
    _service_value_rules(schemas)
    _retitle(schemas)
    _conflicts_as_bad_requests(translated["paths"])
    _any_revision_status(translated["paths"])
    return translated


def _retitle(node: Any) -> None:
    """A renamed property's title follows its name (`Cache Cpu` -> `Redis Cpu`), in every
    schema inside NODE."""
    if isinstance(node, list):
        for item in node:
            _retitle(item)
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, field in properties.items():
            old = seed_word(name)
            if old != name and isinstance(field, dict) and field.get("title") == _title(old):
                field["title"] = _title(name)
    for value in node.values():
        _retitle(value)


def _title(name: str) -> str:
    """A property's title as pydantic makes it from its name."""
    return name.replace("_", " ").title()


def _service_value_rules(schemas: dict[str, Schema]) -> None:
    """`service_rules`' bounds and string rules, where the seed's document is looser."""
    spec = schemas["ResourceSpec"]["properties"]
    for name, (low, high) in CPU_BOUNDS.items():
        number = _branch(spec[service_word(name)])
        number.pop("exclusiveMinimum", None)
        number.update(minimum=low, maximum=high)
    string = {"type": "string", "maxLength": MAX_STRING_LENGTH}
    for owner, field in STRING_MAPS:
        _branch(schemas[owner]["properties"][field])["additionalProperties"] = dict(string)
    for owner, fields in REQUIRED_STRINGS.items():
        schema = schemas[owner]
        schema["required"] = [*schema.get("required", []), *fields]
        for field in fields:
            schema["properties"][field] = non_null(schema["properties"][field])
    for owner, fields in NON_NULL_STRINGS.items():
        for field in fields:
            properties = schemas[owner]["properties"]
            properties[field] = non_null(properties[field])


def _branch(field_schema: Schema) -> Schema:
    """The non-null branch of a nullable field's schema, in place."""
    branches: list[Schema] = field_schema.get("anyOf", [field_schema])
    return next(branch for branch in branches if branch != {"type": "null"})


def _in_service_words(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            translate_text(key, Dialect.SERVICE): _in_service_words(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_in_service_words(item) for item in value]
    if isinstance(value, str):
        return translate_text(value, Dialect.SERVICE)
    return value


def _service_patch(variant: Schema) -> None:
    """The service's PATCH body names no `name` or `source` (sent, they are ignored);
    `revision_source` overrides the source of the revision the PATCH creates."""
    properties = variant["properties"]
    for key in ("name", "source"):
        properties.pop(key, None)
    properties["revision_source"] = {
        "anyOf": [
            {"type": "string", "enum": list(service_revision_sources())},
            {"type": "null"},
        ],
        "description": "The source of the revision this PATCH creates (the deployment's own "
        "when left out).",
    }


def _any_revision_status(paths: dict[str, Schema]) -> None:
    """The revision list's `status` is any string (an unknown one matches nothing)."""
    for parameter in paths["/v2/deployments/{deployment_id}/revisions"]["get"]["parameters"]:
        if parameter["name"] == "status":
            parameter["schema"].pop("pattern", None)


def _conflicts_as_bad_requests(paths: dict[str, Schema]) -> None:
    """The operations that answer a conflict with 400 list no 409."""
    for path, item in paths.items():
        concrete = re.sub(r"\{[^}]+\}", "00000000-0000-0000-0000-000000000000", path)
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            if "409" not in responses or not any(
                method.upper() == verb and pattern.fullmatch(concrete)
                for verb, pattern in CONFLICT_AS_BAD_REQUEST
            ):
                continue
            conflict = responses.pop("409")
            bad = responses.setdefault("400", dict(conflict))
            bad["description"] = f"{bad['description']} Or: {conflict['description']}"
