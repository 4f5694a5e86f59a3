"""Checks of one deployment beyond types: name, per-source rules, mode, numbers, value
bounds, lifecycle. The rules shared with the server live in `planner.api`; these add the
words of the file.

Each returns problems with locations relative to the deployment
(`("source_config", "resource_spec", "cpu")`).
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel

from planner.api.fields import read_only_keys
from planner.api.models import ResourceSpec, SourceConfig, SourceRevisionConfig
from planner.api.rules import Mode, check_mode, check_source_rules, is_env_var_name
from planner.api.rules import check_name as rule_name
from planner.api.rules import check_resource_spec as rule_resource_spec
from planner.api.values import MAX_JSON_DEPTH, check_bounds
from planner.config.desired import DesiredDeployment
from planner.config.diagnostics import Loc, Problem
from planner.errors import did_you_mean

TOO_DEEP = f"nested too deep: tables and arrays may nest at most {MAX_JSON_DEPTH} levels"
# Whole-value fields ignore_changes may name beside the fields of the source models.
_TOP_LEVEL_PATHS = ("source", "secrets", "secret_references")
_NOT_IGNORABLE = {f"source_revision_config.{k}" for k in read_only_keys("source_revision_config")}


def check_name(name: str) -> list[Problem]:
    """The shared name rule (`planner.api.rules.check_name`), in the words of the file."""
    return [Problem((), f"deployment name '{name}' {message}") for _, message in rule_name(name)]


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
    """The shared numeric rules (`planner.api.rules.check_resource_spec`)."""
    return [Problem(loc, message) for loc, message in rule_resource_spec(spec)]


def check_value_bounds(body: Mapping[str, Any], secrets: Mapping[str, str]) -> list[Problem]:
    """The shared bounds of any value (`planner.api.values`): what the server would refuse."""
    data = {**body, "secrets": dict(secrets)} if secrets else body
    deep, found = check_bounds(data)  # one walk for both
    problems = [Problem(deep, TOO_DEEP)] if deep is not None else []
    return problems + [Problem(loc, message) for loc, message in found]


def check_secret_references(desired: DesiredDeployment) -> list[Problem]:
    """Reference names are env var names, unique, and distinct from the secrets' names."""
    problems = []
    seen: set[str] = set()
    for index, reference in enumerate(desired.secret_references or []):
        loc: Loc = ("secret_references", index, "name")
        if not is_env_var_name(reference.name):
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
