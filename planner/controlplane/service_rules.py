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

Loc = tuple[str | int, ...]
ServiceProblem = tuple[Loc, str, str]


class Kind(StrEnum):
    """The deployment writes whose bodies the service dialect reads."""

    CREATE = "create"
    PATCH = "patch"
    REVISION = "revision"


# The create body's required keys besides `name` and `source` (the seed's own).
CREATE_REQUIRED = ("source_config", "source_revision_config", "secrets")
# The sources a PATCH's `revision_source` may name (seed words).
REVISION_SOURCES = (Source.GIT_HOST, Source.INTERNAL_DOCKER, Source.INTERNAL_SOURCE)
# resource_spec's CPU bounds (seed names): (minimum, maximum), both inclusive.
CPU_BOUNDS: dict[str, tuple[float, float]] = {
    "cpu": (0.1, 8.0),
    "queue_cpu": (0.1, 8.0),
    "cache_cpu": (0.1, 8.0),
    "cpu_limit": (0.1, 16.0),
    "queue_cpu_limit": (0.1, 16.0),
    "cache_cpu_limit": (0.1, 16.0),
}
# Objects whose values are strings: (schema, field).
STRING_MAPS = (
    ("ResourceSpec", "labels"),
    ("ResourceSpec", "annotations"),
    ("ContainerResources", "limits"),
    ("ContainerResources", "requests"),
)
# Fields a schema requires, as strings.
REQUIRED_STRINGS: dict[str, tuple[str, ...]] = {"Container": ("image",)}
# Fields that may be left out but are strings when given (never null).
NON_NULL_STRINGS: dict[str, tuple[str, ...]] = {"VolumeMount": ("name", "mountPath")}


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
    config = body.get("source_config")
    if isinstance(config, Mapping) and isinstance(config.get("resource_spec"), Mapping):
        problems += _spec_problems(config["resource_spec"], ("source_config", "resource_spec"))
    return problems


def _spec_problems(spec: Mapping[str, Any], loc: Loc) -> Iterator[ServiceProblem]:
    for name, (low, high) in CPU_BOUNDS.items():
        yield from _bounded(spec.get(service_word(name)), (*loc, service_word(name)), low, high)
    yield from _object_problems("ResourceSpec", spec, loc)
    for key in ("init_containers", "sidecars"):
        for at, container in _items(spec.get(key)):
            yield from _object_problems("Container", container, (*loc, key, at))
            resources = container.get("resources")
            if isinstance(resources, Mapping):
                where = (*loc, key, at, "resources")
                yield from _object_problems("ContainerResources", resources, where)
            for index, mount in _items(container.get("volumeMounts")):
                where = (*loc, key, at, "volumeMounts", index)
                yield from _object_problems("VolumeMount", mount, where)
    for at, mount in _items(spec.get("volume_mounts")):
        yield from _object_problems("VolumeMount", mount, (*loc, "volume_mounts", at))


def _bounded(value: Any, loc: Loc, low: float, high: float) -> Iterator[ServiceProblem]:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return  # null, or another kind: the models' to refuse
    if value < low:
        yield loc, f"Input should be greater than or equal to {low:g}", "greater_than_equal"
    elif value > high:
        yield loc, f"Input should be less than or equal to {high:g}", "less_than_equal"


def _items(value: Any) -> Iterator[tuple[int, Mapping[str, Any]]]:
    if isinstance(value, list):
        yield from ((at, item) for at, item in enumerate(value) if isinstance(item, Mapping))


def _object_problems(schema: str, obj: Mapping[str, Any], loc: Loc) -> Iterator[ServiceProblem]:
    """The string rules of one object of SCHEMA (`STRING_MAPS`, `REQUIRED_STRINGS`,
    `NON_NULL_STRINGS`)."""
    for owner, field in STRING_MAPS:
        values = obj.get(field)
        if owner == schema and isinstance(values, Mapping):
            for key, value in values.items():
                if not isinstance(value, str):
                    yield (*loc, field, key), "Input should be a valid string", "string_type"
    for field in REQUIRED_STRINGS.get(schema, ()):
        if field not in obj:
            yield (*loc, field), "Field required", "missing"
        elif not isinstance(obj[field], str):
            yield (*loc, field), "Input should be a valid string", "string_type"
    for field in NON_NULL_STRINGS.get(schema, ()):
        if field in obj and not isinstance(obj[field], str):
            yield (*loc, field), "Input should be a valid string", "string_type"


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
