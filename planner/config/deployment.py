"""One deployment of the config: merged with `[defaults]`, validated, made desired state.

Problems carry locations relative to the deployment; the loader prefixes them. A value
that came from `[defaults]` says so, and a problem already reported under `[defaults]`
is not repeated for every deployment that inherits it. Locations are in the words the
deployment wrote (`planner.config.spellings`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from planner.api.models import SourceConfig, SourceRevisionConfig
from planner.api.rules import Mode
from planner.api.values import is_plain
from planner.api.vocabulary import SEED_SPELLING
from planner.config.checks import (
    check_ignore_changes,
    check_name,
    check_resource_spec,
    check_secret_references,
    check_value_bounds,
    check_wire_rules,
)
from planner.config.desired import DesiredDeployment, Lifecycle
from planner.config.diagnostics import Loc, Problem, has_path, under
from planner.config.merge import deep_merge
from planner.config.models import DeploymentSpec
from planner.config.secret_values import ResolvedSecrets, resolve_secrets
from planner.config.spellings import both_spellings, has_service_words, written_spelling
from planner.pydantic_internals import serializer

SpecT = TypeVar("SpecT", bound=BaseModel)
# `json.dumps(..., default=str)`, made once; parsed data holds no cycles to look for
_to_json = json.JSONEncoder(default=str, check_circular=False).encode
_NO_LIFECYCLE = Lifecycle()  # frozen: one for every deployment that sets none
_WIRE_KEYS = ("display_name", "source_config", "source_revision_config", "secret_references")
_SHAREABLE_KEYS = ("source_config", "source_revision_config", "secret_references", "lifecycle")


@dataclass
class Loaded:
    """The outcome for one deployment: desired state when it is valid, and findings."""

    desired: DesiredDeployment | None = None
    problems: list[Problem] = field(default_factory=list)
    literal_secrets: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Defaults:
    """The raw `[defaults]` table (the environment's merged in), the locations of problems
    already reported in it, and the environment's own defaults (to name where a value
    came from)."""

    raw: Mapping[str, Any] = field(default_factory=dict)
    problem_locs: tuple[Loc, ...] = ()
    environment: str | None = None
    environment_raw: Mapping[str, Any] = field(default_factory=dict)
    # A table of `raw` as validated for the first deployment that inherits it whole, by
    # key: every other one that does gets the same (equal) model, not a copy of its own.
    validated: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # What the checks of a deployment found of such a shared model, by key: its wire JSON
    # and whether that is within every value bound, and its resource_spec's problems.
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def origin(self, loc: Loc) -> str:
        """The table a default at LOC was written in."""
        if self.environment is not None and has_path(self.environment_raw, loc):
            return f"[environments.{self.environment}.defaults]"
        return "[defaults]"


def validate_model(
    model: type[SpecT], raw: Mapping[str, Any]
) -> tuple[SpecT | None, list[Problem]]:
    """Strict validation of raw data (secrets excluded; unknown keys reported by the walk).

    Strict JSON validation treats TOML and JSON alike: no bool-as-number, no 1.5 for an
    integer, enum values as strings.
    """
    body = (
        {key: value for key, value in raw.items() if key != "secrets"} if "secrets" in raw else raw
    )
    try:
        return model.model_validate_json(_to_json(body), strict=True), []
    except ValidationError as error:
        errors = error.errors()
        problems = [_problem_of(item) for item in errors if item["type"] != "extra_forbidden"]
        unknown = [_prunable(tuple(i["loc"])) for i in errors if i["type"] == "extra_forbidden"]
        rest = _without(body, unknown)
        if problems or rest == body:
            return None, problems
        # Only unknown keys (reported by the walk): validate the rest, so that every
        # other check of the deployment still runs and all problems show at once.
        return validate_model(model, rest)
    except ValueError:  # non-finite numbers (reported by the raw walk)
        return None, []


# Type problems in the words of the file (TOML tables / arrays) rather than pydantic's.
_MESSAGES = {
    "missing": "required",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "string_type": "must be a string",
    "string_too_short": "must not be empty",
    "bool_type": "must be true or false",
    "dict_type": "must be a table (object)",
    "model_type": "must be a table (object)",
    "list_type": "must be an array",
    "tuple_type": "must be an array",
}


def _problem_of(item: Mapping[str, Any]) -> Problem:
    message = _MESSAGES.get(item["type"]) or str(item["msg"]).removeprefix("Value error, ")
    if item["type"] == "enum" or message.startswith("Input should be "):
        message = "must be " + message.removeprefix("Input should be ")
    return Problem(tuple(item["loc"]), message)


def load_deployment(
    name: str, own: Mapping[str, Any], defaults: Defaults, *, mode: Mode, environ: Mapping[str, str]
) -> Loaded:
    """Validate one deployment table (after merging defaults) into desired state."""
    remote = own.get("name")
    merged = deep_merge(defaults.raw, without_name(own))
    loaded = Loaded(problems=check_name(name) + _check_remote_name(remote))
    spelling = SEED_SPELLING
    if has_service_words(merged):  # most tables write none: no more to look at
        loaded.problems += both_spellings(merged)
        spelling = written_spelling(merged)
    # A table inherited whole, validated for an earlier deployment, is not validated again
    # (unless something else is wrong: the problems are then those of the whole table).
    inherited = [key for key in defaults.validated if merged[key] is defaults.raw[key]]
    body = {key: merged[key] for key in merged if key not in inherited} if inherited else merged
    spec, problems = validate_model(DeploymentSpec, body)
    if problems and body is not merged:
        spec, problems = validate_model(DeploymentSpec, merged)
    loaded.problems.extend(problems)
    secrets = resolve_secrets(
        merged.get("secrets", {}), deployment=name, loc=("secrets",), environ=environ
    )
    loaded.problems.extend(secrets.problems)
    loaded.literal_secrets = [s for s in secrets.literal_names if has_path(own, ("secrets", s))]
    # Values of the wrong type are set aside so the other checks still run (all at once).
    pruned = [_prunable(problem.loc) for problem in problems]
    if spec is None:
        spec, _ = validate_model(DeploymentSpec, _without(merged, pruned))
    if spec is not None:
        shared = defaults if not problems else None  # validated whole: as in [defaults]
        desired = _desired(name, spec, merged, secrets, shared)
        if isinstance(remote, str):
            desired = desired.model_copy(update={"remote_name": remote})
        if spelling is not SEED_SPELLING:
            desired = desired.model_copy(update={"spelling": spelling})
        checked = _check_desired(desired, mode, defaults)
        loaded.problems.extend(p for p in checked if not under(spelling.loc(p.loc), pruned))
        if not loaded.problems:
            loaded.desired = desired
    if spelling is not SEED_SPELLING:  # the checks' locations are in the seed's words
        loaded.problems = [Problem(spelling.loc(p.loc), p.message) for p in loaded.problems]
    loaded.problems = _attribute(loaded.problems, own, defaults)
    return loaded


def without_name(table: Mapping[str, Any]) -> Mapping[str, Any]:
    """A deployment table without its remote `name` (not a field of the spec); most have
    none, and are then not copied."""
    if "name" not in table:
        return table
    return {key: value for key, value in table.items() if key != "name"}


def _check_remote_name(remote: Any) -> list[Problem]:
    """`name = "..."`: the deployment's name in the workspace, under the API's name rule."""
    if remote is None:
        return []
    if not isinstance(remote, str):
        return [Problem(("name",), "must be a string")]
    return [Problem(("name",), problem.message) for problem in check_name(remote)]


def _prunable(loc: Loc) -> Loc:
    """The table key to set aside for a type problem at `loc` (never inside a list)."""
    for index, part in enumerate(loc):
        if isinstance(part, int):
            return loc[:index]
    return loc


def _without(data: Mapping[str, Any], locs: list[Loc]) -> dict[str, Any]:
    """A copy of `data` without the values at `locs` (keys only)."""
    copy = dict(data)
    for loc in locs:
        if not loc:
            continue
        head, *rest = loc
        if not rest:
            copy.pop(str(head), None)
        elif isinstance(copy.get(str(head)), Mapping):
            copy[str(head)] = _without(copy[str(head)], [tuple(rest)])
    return copy


def _desired(
    name: str,
    spec: DeploymentSpec,
    merged: Mapping[str, Any],
    secrets: ResolvedSecrets,
    shared: Defaults | None,
) -> DesiredDeployment:
    # Only what the config set is passed, so `managed()` (exclude_unset) is exactly that.
    # A pruned or null value is not set (both are reported as problems already).
    fields: dict[str, Any] = {
        key: getattr(spec, key)
        for key in _WIRE_KEYS
        if key in spec.model_fields_set and getattr(spec, key) is not None
    }
    if "secrets" in merged:
        fields.update(secrets=secrets.values, secret_env=secrets.env)
    fields["lifecycle"] = spec.lifecycle or _NO_LIFECYCLE
    if shared is not None:  # a table inherited whole from [defaults]: one model for all
        for key in _SHAREABLE_KEYS:
            table = merged.get(key)
            if table is None or table is not shared.raw.get(key):
                continue
            if key in shared.validated:
                fields[key] = shared.validated[key]
            elif fields.get(key) is not None:
                shared.validated[key] = fields[key]
    return DesiredDeployment(name=name, source=spec.source, **fields)


def _check_desired(desired: DesiredDeployment, mode: Mode, shared: Defaults) -> list[Problem]:
    body, plain = _managed_body(desired, shared)
    problems = check_wire_rules(body, str(desired.source), mode)
    problems += _resource_problems(desired.source_config, shared)
    secrets = desired.secret_values()
    if not plain or (secrets and not is_plain(secrets, 1)):
        reported = {problem.loc for problem in problems}
        # A number past both its resource bound and the 64-bit range is one problem, not two.
        bounds = check_value_bounds(body, secrets)
        problems += [problem for problem in bounds if problem.loc not in reported]
    problems += check_secret_references(desired)
    problems += check_ignore_changes(
        desired.lifecycle.ignore_changes, ("lifecycle", "ignore_changes")
    )
    return problems


def _managed_body(desired: DesiredDeployment, shared: Defaults) -> tuple[dict[str, Any], bool]:
    """`desired.managed()`, and whether it is surely within every value bound (False: look
    closer). The models a deployment shares with others (`Defaults.validated`) are dumped
    and looked at once; a deployment setting fields of other kinds is dumped whole."""
    given = desired.model_fields_set
    if not given <= _BODY_FIELDS:
        return desired.managed(), False
    body: dict[str, Any] = {} if desired.remote_name is None else {"name": desired.remote_name}
    plain = is_plain(desired.remote_name, 1)
    for key in _WIRE_ORDER:
        if key not in given:
            continue
        value = getattr(desired, key)
        if isinstance(value, BaseModel):
            wire, part_plain = _shared_wire(key, value, shared)
        else:
            wire = value.value if isinstance(value, Enum) else value
            part_plain = is_plain(wire, 1)
        body[key] = wire
        plain = plain and part_plain
    return body, plain


def _shared_wire(key: str, model: BaseModel, shared: Defaults) -> tuple[Any, bool]:
    """MODEL's wire JSON (its fields set) and whether it is within the bounds: found once
    for the model of KEY all deployments inheriting it share."""
    found = shared.derived.get(key)
    if found is not None and found[0] is model:
        return found[1], found[2]
    wire = _WIRE_DUMPS[key](model, mode="json", exclude_unset=True)
    plain = is_plain(wire, 1)
    if shared.validated.get(key) is model:
        shared.derived[key] = (model, wire, plain)
    return wire, plain


def _resource_problems(source_config: SourceConfig, shared: Defaults) -> list[Problem]:
    """`check_resource_spec` of a deployment's resource_spec, found once for the one all
    deployments inheriting `source_config` share."""
    if shared.validated.get("source_config") is not source_config:
        return check_resource_spec(source_config.resource_spec)
    found = shared.derived.get("resource_spec")
    if found is None or found[0] is not source_config:
        found = (source_config, check_resource_spec(source_config.resource_spec))
        shared.derived["resource_spec"] = found
    return list(found[1])


# Fields `_managed_body` dumps itself (the others are not managed, or take `managed()`),
# in the order of DesiredDeployment's fields (the order `managed()` gives them).
_WIRE_DUMPS = {
    "source_config": serializer(SourceConfig).to_python,
    "source_revision_config": serializer(SourceRevisionConfig).to_python,
}
_WIRE_ORDER = ("source", "display_name", "source_config", "source_revision_config")
_NOT_WIRE = ("name", "remote_name", "secrets", "secret_env", "lifecycle", "spelling")
_BODY_FIELDS = frozenset(_WIRE_ORDER + _NOT_WIRE)


def _attribute(
    problems: list[Problem], own: Mapping[str, Any], defaults: Defaults
) -> list[Problem]:
    """Mark problems whose value came from `[defaults]`; drop those reported there already."""
    kept = []
    for problem in problems:
        inherited = bool(problem.loc) and not has_path(own, problem.loc)
        if inherited and has_path(defaults.raw, problem.loc):
            if under(problem.loc, defaults.problem_locs):
                continue
            problem = Problem(
                problem.loc, f"{problem.message} (set in {defaults.origin(problem.loc)})"
            )
        kept.append(problem)
    return kept
