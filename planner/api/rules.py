"""Rules of PRODUCT.md, shared by config validation and the local control plane: names,
per-source fields, modes and resource numbers (value bounds are `planner.api.values`).

Checks return problems as `(loc, message)` pairs, `loc` a tuple of path parts relative
to the deployment body (`("source_config", "repo_url")`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cache, lru_cache
from typing import Any

from planner.api.models import CPU_PAIRS, MEMORY_PAIRS, SCALE_PAIRS, ResourceSpec, Source
from planner.api.modes import Mode as Mode  # named here too: the rules of each mode
from planner.files import Loc

SOURCES_BY_MODE: dict[Mode, frozenset[str]] = {
    Mode.CLOUD: frozenset(
        {Source.GIT_HOST, Source.INTERNAL_DOCKER, Source.INTERNAL_SOURCE, Source.INTERNAL_TEMPLATE}
    ),
    Mode.SELF_HOSTED: frozenset({Source.EXTERNAL_DOCKER}),
}

_ALL = frozenset(s.value for s in Source)
_NOT_EXTERNAL = _ALL - {Source.EXTERNAL_DOCKER}

# Which sources a field belongs to; a field set for another source is rejected.
FIELD_SOURCES: dict[tuple[str, ...], frozenset[str]] = {
    ("source_config", "integration_id"): frozenset({Source.GIT_HOST}),
    ("source_config", "repo_url"): frozenset({Source.GIT_HOST}),
    ("source_config", "build_on_push"): frozenset({Source.GIT_HOST}),
    ("source_config", "deployment_type"): _NOT_EXTERNAL,
    ("source_config", "custom_url"): frozenset({Source.EXTERNAL_DOCKER}),
    ("source_config", "listener_id"): frozenset({Source.EXTERNAL_DOCKER}),
    ("source_config", "listener_config"): frozenset({Source.EXTERNAL_DOCKER}),
    ("source_config", "install_command"): frozenset({Source.GIT_HOST, Source.INTERNAL_SOURCE}),
    ("source_config", "build_command"): frozenset({Source.GIT_HOST, Source.INTERNAL_SOURCE}),
    ("source_config", "template_id"): frozenset({Source.INTERNAL_TEMPLATE}),
    ("source_revision_config", "repo_ref"): frozenset({Source.GIT_HOST}),
    ("source_revision_config", "agent_config_path"): _NOT_EXTERNAL,
    ("source_revision_config", "image_uri"): frozenset(
        {Source.EXTERNAL_DOCKER, Source.INTERNAL_DOCKER}
    ),
    ("source_revision_config", "source_tarball_path"): frozenset({Source.INTERNAL_SOURCE}),
    ("secret_references",): frozenset({Source.EXTERNAL_DOCKER}),
}

# Fields a complete deployment of each source needs (the planner's config always;
# the server on create only for git_host/external_docker, since the real client creates
# internal_* deployments empty and sends the image or tarball in a later PATCH).
REQUIRED_FIELDS: dict[str, list[tuple[str, str]]] = {
    Source.GIT_HOST: [
        ("source_config", "integration_id"),
        ("source_config", "repo_url"),
        ("source_revision_config", "repo_ref"),
        ("source_revision_config", "agent_config_path"),
    ],
    Source.EXTERNAL_DOCKER: [("source_revision_config", "image_uri")],
    Source.INTERNAL_DOCKER: [("source_revision_config", "image_uri")],
    Source.INTERNAL_SOURCE: [
        ("source_revision_config", "source_tarball_path"),
        ("source_revision_config", "agent_config_path"),
    ],
    Source.INTERNAL_TEMPLATE: [],
}

Problem = tuple[Loc, str]

# Deployment names: a DNS label (the name ends up in hostnames and Kubernetes objects).
NAME_PATTERN = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"
NAME_MAX_LENGTH = 63
NAME_RULE = "must be lowercase letters, digits and '-', starting and ending with a letter or digit"
_NAME = re.compile(NAME_PATTERN)
# Secret and secret-reference names become environment variable names.
SECRET_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_SECRET_NAME = re.compile(SECRET_NAME_PATTERN)


def is_env_var_name(name: str) -> bool:
    return _SECRET_NAME.fullmatch(name) is not None


_SPEC = ("source_config", "resource_spec")
_SECTION_FIELDS = {
    section: frozenset(loc[1] for loc in FIELD_SOURCES if loc[0] == section and len(loc) == 2)
    for section in ("source_config", "source_revision_config")
}
_RULE_ORDER = {loc: index for index, loc in enumerate(FIELD_SOURCES)}


def is_tag_ref(ref: str | None) -> bool:
    return bool(ref) and str(ref).startswith("refs/tags/")


def _get(body: Mapping[str, Any], loc: tuple[str, ...]) -> Any:
    node: Any = body
    for part in loc:
        # a plain dict first: the ABC check costs several times more (every rule, every
        # deployment of a large config)
        if type(node) is not dict and not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def check_mode(source: str, mode: Mode | str) -> list[Problem]:
    """The source must be available in the control plane's mode (cloud / self-hosted)."""
    mode = mode if type(mode) is Mode else Mode(mode)
    if source in SOURCES_BY_MODE[mode]:
        return []
    where = Mode.SELF_HOSTED if source == Source.EXTERNAL_DOCKER else Mode.CLOUD
    return [(("source",), f"source '{source}' is only available in {where} deployments")]


def check_source_rules(
    body: Mapping[str, Any], source: str, *, require_complete: bool
) -> list[Problem]:
    """Problems of one deployment body (create, patch, or the merged result) for `source`.

    `body` is wire JSON (None values count as unset). With `require_complete`, fields a
    source needs must be present.
    """
    problems: list[Problem] = []
    for loc in _set_fields(body):
        sources = FIELD_SOURCES[loc]
        if source not in sources:
            owners = ", ".join(sorted(sources))
            problems.append((loc, f"not allowed for source '{source}' (belongs to {owners})"))
    if require_complete:
        for loc in REQUIRED_FIELDS.get(source, []):
            if _get(body, loc) in (None, ""):
                problems.append((loc, f"required for source '{source}'"))
    problems.extend(_check_tag_ref(body))
    return problems


def _set_fields(body: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The locations of `FIELD_SOURCES` BODY sets (None and an empty secret_references
    set nothing), in the rules' order: a body sets a few, so only those are looked at."""
    found: list[tuple[str, ...]] = []
    for key, value in body.items():
        fields = _SECTION_FIELDS.get(key)
        if value is None:
            continue
        if fields is None:
            if key == "secret_references" and value != []:
                found.append((key,))
        elif type(value) is dict or isinstance(value, Mapping):
            found += [(key, name) for name in fields & value.keys() if value[name] is not None]
    return sorted(found, key=_RULE_ORDER.__getitem__) if len(found) > 1 else found


def _check_tag_ref(body: Mapping[str, Any]) -> Iterable[Problem]:
    ref = _get(body, ("source_revision_config", "repo_ref"))
    if is_tag_ref(ref) and _get(body, ("source_config", "build_on_push")) is True:
        yield (
            ("source_config", "build_on_push"),
            f"must be false when repo_ref is a tag ({ref})",
        )


def is_valid_name(name: str) -> bool:
    return len(name) <= NAME_MAX_LENGTH and _NAME.fullmatch(name) is not None


def check_name(name: str) -> list[Problem]:
    """A deployment name is a DNS label: 1 to 63 of [a-z0-9-], no '-' at either end."""
    if is_valid_name(name):
        return []
    if len(name) > NAME_MAX_LENGTH:
        return [(("name",), f"is longer than {NAME_MAX_LENGTH} characters")]
    return [(("name",), NAME_RULE)]


# The largest number any resource_spec field takes: Kubernetes counts replicas in 32 bits,
# and no CPU count, size in MB or connection count comes near it (`cpu = 1e308` does).
RESOURCE_MAXIMUM = 2**31 - 1


def check_resource_spec(spec: ResourceSpec | None) -> list[Problem]:
    """Numbers are non-negative and at most `RESOURCE_MAXIMUM`, CPUs positive, requests
    within limits, min within max (the config's rule)."""
    if spec is None:
        return []
    problems = check_resource_numbers(spec)
    for low, high in _set_numbers(frozenset(spec.model_fields_set))[1]:
        problems.extend(_check_pair(spec, low, high))
    return problems


def check_resource_numbers(spec: ResourceSpec | None) -> list[Problem]:
    """Each number within its own bounds (the server's rule: what its OpenAPI document
    states; the order of a pair is the config's business, see `check_resource_spec`)."""
    return [] if spec is None else list(_check_signs(spec))


def resource_minimums() -> dict[str, tuple[str, int]]:
    """Each numeric resource_spec field's lower bound as JSON Schema says it: CPUs
    `exclusiveMinimum` 0, every other number `minimum` 0 (the OpenAPI document and
    `check_resource_spec` read this one table)."""
    return {
        name: ("exclusiveMinimum", 0) if "cpu" in name else ("minimum", 0)
        for name in numeric_fields()
    }


def _check_signs(spec: ResourceSpec) -> Iterator[Problem]:
    for name, kind, bound in _set_numbers(frozenset(spec.model_fields_set))[0]:
        value = getattr(spec, name)
        if value is None:
            continue
        if kind == "exclusiveMinimum" and value <= bound:
            yield (*_SPEC, name), f"must be greater than {bound}"
        elif kind == "minimum" and value < bound:
            yield (*_SPEC, name), "must not be negative"
        elif value > RESOURCE_MAXIMUM:
            yield (*_SPEC, name), f"must be at most {RESOURCE_MAXIMUM}"


@lru_cache(maxsize=256)
def _set_numbers(
    present: frozenset[str],
) -> tuple[tuple[tuple[str, str, int], ...], tuple[tuple[str, str], ...]]:
    """Of the fields a spec sets (PRESENT), in the order checked: the numbers with their
    bound, and the (low, high) pairs it sets both of. An unset field is None: nothing
    to check (a spec sets a few of its ~30 numbers, most specs the same few)."""
    signs = tuple(
        (name, kind, bound)
        for name, (kind, bound) in resource_minimums().items()
        if name in present
    )
    pairs = tuple(
        (low, high)
        for low, high in SCALE_PAIRS + CPU_PAIRS + MEMORY_PAIRS
        if low in present and high in present
    )
    return signs, pairs


@cache
def numeric_fields() -> tuple[str, ...]:
    numeric = {int | None, float | None}
    return tuple(
        name for name, info in ResourceSpec.model_fields.items() if info.annotation in numeric
    )


def _check_pair(spec: ResourceSpec, low: str, high: str) -> Iterator[Problem]:
    low_value, high_value = getattr(spec, low), getattr(spec, high)
    if low_value is not None and high_value is not None and low_value > high_value:
        yield (
            (*_SPEC, low),
            f"must not be greater than {high} ({low_value:g} > {high_value:g})",
        )
