"""What the real service's document says of a request beyond the seed's models.

The service dialect (`planner.controlplane.dialect`) checks a deployment write's body,
still in the service's words, against these facts before the seed's rules see it, and
`planner.controlplane.dialect_document` writes the same facts into the served document.
Each problem is `(loc, msg, type)`, `loc` relative to the body, as pydantic words them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import Any

from planner.api.models import Source
from planner.api.vocabulary import is_seed_only_value, service_word

ServiceProblem = tuple[tuple[str | int, ...], str, str]


class Kind(StrEnum):
    """The deployment writes whose bodies the service dialect reads."""

    CREATE = "create"
    PATCH = "patch"
    REVISION = "revision"


# The create body's required keys besides `name` and `source` (the seed's own).
CREATE_REQUIRED = ("source_config", "source_revision_config", "secrets")
# The sources a PATCH's `revision_source` may name (seed words).
REVISION_SOURCES = (Source.GIT_HOST, Source.INTERNAL_DOCKER, Source.INTERNAL_SOURCE)


def enum_message(values: tuple[str, ...]) -> str:
    """pydantic's words for a value outside an enum."""
    quoted = [f"'{value}'" for value in values]
    listed = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"Input should be {listed}"


def service_sources() -> tuple[str, ...]:
    return tuple(service_word(source.value) for source in Source)


def service_revision_sources() -> tuple[str, ...]:
    return tuple(service_word(source.value) for source in REVISION_SOURCES)


def service_problems(body: Mapping[str, Any], kind: Kind) -> list[ServiceProblem]:
    """Every problem the service's document finds in BODY (in its words) that the seed's
    models would not."""
    problems: list[ServiceProblem] = []
    if kind is Kind.CREATE:
        problems += _create_problems(body)
    if kind is Kind.PATCH:
        problems += _revision_source_problems(body)
    return problems


def _create_problems(body: Mapping[str, Any]) -> Iterator[ServiceProblem]:
    for key in CREATE_REQUIRED:
        if key not in body:
            yield (key,), "Field required", "missing"
    if is_seed_only_value(body.get("source")):
        yield ("source",), enum_message(service_sources()), "enum"


def _revision_source_problems(body: Mapping[str, Any]) -> Iterator[ServiceProblem]:
    value = body.get("revision_source")
    if value is None:
        return
    allowed = service_revision_sources()
    if not isinstance(value, str):
        yield ("revision_source",), "Input should be a valid string", "string_type"
    elif value not in allowed:
        yield ("revision_source",), enum_message(allowed), "enum"
