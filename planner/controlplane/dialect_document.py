"""The served OpenAPI document in the service dialect.

The document is built from the routes and the seed's models (`planner.controlplane.
openapi`); in the service dialect it is then rewritten to say what that server does:
every word of the vocabulary table in the service's spelling (enum values, property
names, required lists, schema names and their references, descriptions), and the facts
of `planner.controlplane.service_rules` and `planner.controlplane.dialect` (the create's
required keys, the PATCH's `revision_source`, a conflict answered 400).

Either dialect names itself in `info.x-planner-dialect` (`seed` or `service`); the
`Source` schema's enum (`git_host` or `github`) says the same to a reader that does not
know that key.
"""

from __future__ import annotations

import re
from typing import Any

from planner.api.vocabulary import Dialect, translate_text
from planner.controlplane.dialect import CONFLICT_AS_BAD_REQUEST
from planner.controlplane.service_rules import CREATE_REQUIRED, service_revision_sources

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
    _conflicts_as_bad_requests(translated["paths"])
    return translated


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
