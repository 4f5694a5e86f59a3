"""Checks of one deployment beyond types: name, per-source rules, mode, numbers, lifecycle.

Each returns problems with locations relative to the deployment
(`("source_config", "resource_spec", "cpu")`).
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel

from planner.api.models import (
    CPU_PAIRS,
    MEMORY_PAIRS,
    SCALE_PAIRS,
    ResourceSpec,
    SourceConfig,
    SourceRevisionConfig,
)
from planner.api.rules import Mode, check_mode, check_source_rules
from planner.config.desired import DesiredDeployment
from planner.config.diagnostics import Loc, Problem, did_you_mean
from planner.config.models import NAME_MAX_LENGTH, SECRET_NAME_PATTERN, is_valid_name

_SPEC: Loc = ("source_config", "resource_spec")
# Whole-value fields ignore_changes may name beside the fields of the source models.
_TOP_LEVEL_PATHS = ("source", "secrets", "secret_references")
_NOT_IGNORABLE = {"source_revision_config.repo_commit_sha"}
_SECRET_NAME = re.compile(SECRET_NAME_PATTERN)


def check_name(name: str) -> list[Problem]:
    if is_valid_name(name):
        return []
    if len(name) > NAME_MAX_LENGTH:
        return [
            Problem((), f"deployment name '{name}' is longer than {NAME_MAX_LENGTH} characters")
        ]
    return [
        Problem(
            (),
            f"deployment name '{name}' must be lowercase letters, digits and '-', "
            "starting and ending with a letter or digit",
        )
    ]


def check_wire_rules(body: Mapping[str, Any], source: str, mode: Mode) -> list[Problem]:
    """Per-source rules of the API (fields of other sources, required fields, tag refs, mode)."""
    found = check_source_rules(body, source, require_complete=True)
    problems = [Problem(loc, message) for loc, message in found]
    for loc, message in check_mode(source, mode):
        other = Mode.SELF_HOSTED if mode is Mode.CLOUD else Mode.CLOUD
        problems.append(
            Problem(
                loc,
                f"{message}; this config targets {mode.value} "
                f'([control_plane] mode = "{other.value}" to change it)',
            )
        )
    return problems


def check_resource_spec(spec: ResourceSpec | None) -> list[Problem]:
    """Numbers are non-negative, CPUs positive, requests within limits, min within max."""
    if spec is None:
        return []
    problems = list(_check_signs(spec))
    for low, high in SCALE_PAIRS:
        problems.extend(_check_pair(spec, low, high))
    for low, high in CPU_PAIRS + MEMORY_PAIRS:
        problems.extend(_check_pair(spec, low, high))
    return problems


def _check_signs(spec: ResourceSpec) -> Iterator[Problem]:
    for name in _numeric_fields():
        value = getattr(spec, name)
        if value is None:
            continue
        if "cpu" in name and value <= 0:
            yield Problem((*_SPEC, name), "must be greater than 0")
        elif value < 0:
            yield Problem((*_SPEC, name), "must not be negative")


@cache
def _numeric_fields() -> tuple[str, ...]:
    numeric = {int | None, float | None}
    return tuple(
        name for name, info in ResourceSpec.model_fields.items() if info.annotation in numeric
    )


def _check_pair(spec: ResourceSpec, low: str, high: str) -> Iterator[Problem]:
    low_value, high_value = getattr(spec, low), getattr(spec, high)
    if low_value is not None and high_value is not None and low_value > high_value:
        yield Problem(
            (*_SPEC, low), f"must not be greater than {high} ({low_value:g} > {high_value:g})"
        )


def check_secret_references(desired: DesiredDeployment) -> list[Problem]:
    """Reference names are env var names, unique, and distinct from the secrets' names."""
    problems = []
    seen: set[str] = set()
    for index, reference in enumerate(desired.secret_references or []):
        loc: Loc = ("secret_references", index, "name")
        if not _SECRET_NAME.match(reference.name):
            problems.append(Problem(loc, "must be a valid environment variable name"))
        elif reference.name in seen:
            problems.append(Problem(loc, f"'{reference.name}' is referenced more than once"))
        elif reference.name in desired.secrets:
            message = f"'{reference.name}' is also declared in secrets; use one or the other"
            problems.append(Problem(loc, message))
        seen.add(reference.name)
    return problems


def check_ignore_changes(paths: tuple[str, ...], loc: Loc) -> list[Problem]:
    """Every ignore_changes entry must name a field of the deployment (README: "Lifecycle")."""
    known = ignorable_paths()
    problems = []
    for index, path in enumerate(paths):
        if path in known:
            continue
        if path.startswith("secrets."):
            message = "secrets are ignored as a whole: use 'secrets'"
        else:
            message = f"'{path}' names no field of a deployment{did_you_mean(path, known)}"
        problems.append(Problem((*loc, index), message))
    return problems


@cache
def ignorable_paths() -> frozenset[str]:
    """Dotted paths ignore_changes accepts: top-level values and every model field below."""
    paths = set(_TOP_LEVEL_PATHS)
    for prefix, model in (
        ("source_config", SourceConfig),
        ("source_revision_config", SourceRevisionConfig),
    ):
        paths.add(prefix)
        paths.update(_model_paths(model, prefix))
    return frozenset(paths - _NOT_IGNORABLE)


def _model_paths(model: type[BaseModel], prefix: str) -> Iterator[str]:
    for name, info in model.model_fields.items():
        path = f"{prefix}.{name}"
        yield path
        for option in typing.get_args(info.annotation):
            if isinstance(option, type) and issubclass(option, BaseModel):
                yield from _model_paths(option, path)
