"""One field of one deployment in a promotion: where `--to`'s value comes from, and the
edit that makes it `--from`'s value (or the problem saying why no one edit can).

The promoted fields are the `source_revision_config` keys the field-behaviour table classes
as new-revision; either dialect's spelling of a key is the same field. How a value is traced
and which edits are made: `planner.config.promotion`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.api.fields import FIELD_BEHAVIOUR, ChangeClass
from planner.api.vocabulary import seed_word, service_word
from planner.config.diagnostics import Loc, Problem
from planner.config.environments import (
    Inputs,
    Layer,
    deployment_layers,
    environment_names,
    resolve_environment,
)
from planner.config.variables import ENVIRON_PREFIX, as_text, referenced_variables, text_around

REVISION = "source_revision_config"
PROMOTED_KEYS: tuple[str, ...] = tuple(
    path.partition(".")[2]
    for path, change in FIELD_BEHAVIOUR.items()
    if path.startswith(f"{REVISION}.") and change is ChangeClass.NEW_REVISION
)


class _Absent:
    """No value (a field or variable the file does not set)."""


ABSENT = _Absent()


@dataclass(frozen=True)
class FieldEdit:
    """One promoted field: DEPLOYMENT's FIELD goes from TO_VALUE to FROM_VALUE in TO
    by writing WRITTEN_AFTER at LOCATION (where WRITTEN_BEFORE was, or nothing: ADDED)."""

    deployment: str
    field: str
    from_value: Any
    to_value: Any
    location: Loc
    written_before: Any
    written_after: Any
    added: bool = False


@dataclass
class Promoter:
    """One promotion's inputs, and what it found."""

    raw: Mapping[str, Any]
    from_env: str
    to_env: str
    environ: Mapping[str, str]
    label: str
    resolved: dict[str, dict[str, Any]] = field(default_factory=dict)
    layers: dict[str, dict[str, list[Layer]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def envs(self) -> tuple[str, str]:
        return self.from_env, self.to_env

    def resolve(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """RAW resolved in the environment promoted to."""
        return resolve_environment(
            raw, Inputs(env=self.to_env, environ=self.environ), label=self.label
        )


def promoted(promoter: Promoter, name: str) -> Iterator[FieldEdit]:
    """The edits that promote deployment NAME's fields (a field that cannot be promoted
    adds its problem to PROMOTER's)."""
    for key in PROMOTED_KEYS:
        found = _promoted_field(promoter, name, key)
        if isinstance(found, Problem):
            promoter.problems.append(found)
        elif found is not None:
            yield found


def _promoted_field(promoter: Promoter, name: str, key: str) -> FieldEdit | Problem | None:
    spellings = dict.fromkeys((key, service_word(key)))
    values = [_resolved_value(promoter.resolved[env], name, spellings) for env in promoter.envs]
    origins = [_origin(promoter.layers[env].get(name, []), spellings) for env in promoter.envs]
    for origin in origins:
        overridden = _overridden(promoter, name, origin)
        if overridden is not None:
            return overridden
    from_value, to_value = values
    if from_value is ABSENT or same(from_value, to_value):
        return None
    if to_value is ABSENT or origins[1] is None:
        unset: Loc = ("deployments", name, REVISION, key)
        message = f"{promoter.from_env} sets it, {promoter.to_env} does not (nothing to replace)"
        return Problem(unset, message)
    loc, written = origins[1]
    field_name = f"{REVISION}.{loc[-1]}"
    variables = referenced_variables(written)
    if not variables:
        return _literal_edit(promoter, name, field_name, (from_value, to_value), loc, written)
    return _variable_edit(promoter, name, field_name, (from_value, to_value), loc, written)


def _resolved_value(resolved: Mapping[str, Any], name: str, spellings: Mapping[str, None]) -> Any:
    """The value of a `source_revision_config` key of deployment NAME in one environment
    (ABSENT: not set), its defaults merged in."""
    for table in (resolved.get("deployments", {}).get(name), resolved.get("defaults")):
        revision = table.get(REVISION) if isinstance(table, Mapping) else None
        for spelling in spellings:
            if isinstance(revision, Mapping) and spelling in revision:
                return revision[spelling]
    return ABSENT


def _origin(layers: list[Layer], spellings: Mapping[str, None]) -> tuple[Loc, Any] | None:
    """Where the highest of LAYERS writes the key, and what it writes (None: none does)."""
    for loc, table in layers:
        revision = table.get(REVISION)
        for spelling in spellings:
            if isinstance(revision, Mapping) and spelling in revision:
                return (*loc, REVISION, spelling), revision[spelling]
    return None


def same(one: Any, other: Any) -> bool:
    """Equal, and of one type (`1` is not `1.0`, `True` is not `1`)."""
    return type(one) is type(other) and one == other


def _overridden(promoter: Promoter, name: str, origin: tuple[Loc, Any] | None) -> Problem | None:
    """A problem when the value written at ORIGIN reads a variable the environ sets: the
    file is not where its value comes from, in any environment."""
    if origin is None:
        return None
    loc, written = origin
    for variable in referenced_variables(written):
        if promoter.environ.get(ENVIRON_PREFIX + variable) is not None:
            return Problem(
                loc,
                f"{name}'s value reads ${{var.{variable}}}, which the environment variable "
                f"{ENVIRON_PREFIX}{variable} sets in every environment: unset it to promote "
                "the file's values",
            )
    return None


def _literal_edit(
    promoter: Promoter, name: str, field_name: str, values: tuple[Any, Any], loc: Loc, written: Any
) -> FieldEdit | Problem:
    """The literal at LOC replaced (it is under `[environments.TO]`), else added to TO's
    overlay of NAME when no other environment reads it; else the environments that do."""
    from_value, to_value = values
    after = from_value.replace("${", "$${") if isinstance(from_value, str) else from_value
    if loc[:2] == ("environments", promoter.to_env):
        return FieldEdit(name, field_name, from_value, to_value, loc, written, after)
    readers = [env for env in _readers(promoter, loc) if env != promoter.to_env]
    if readers:
        return Problem(
            loc,
            f"{promoter.to_env}'s {field_name} of {name} is this literal, which "
            f"{', '.join(readers)} also read: promotion only writes under "
            f"[environments.{promoter.to_env}]",
        )
    overlay: Loc = ("environments", promoter.to_env, "deployments", name, REVISION, loc[-1])
    return FieldEdit(name, field_name, from_value, to_value, overlay, None, after, added=True)


def environment_layers(raw: Mapping[str, Any], env: str) -> dict[str, list[Layer]]:
    """Each deployment's tables in ENV, highest first, the defaults of ENV included."""
    environment = raw["environments"][env]
    env_defaults = environment.get("defaults") if isinstance(environment, Mapping) else None
    shared: list[Layer] = []
    if isinstance(env_defaults, Mapping):
        shared.append((("environments", env, "defaults"), env_defaults))
    if isinstance(raw.get("defaults"), Mapping):
        shared.append((("defaults",), raw["defaults"]))
    return {name: [*own, *shared] for name, own in deployment_layers(raw, env).items()}


def _readers(promoter: Promoter, loc: Loc) -> list[str]:
    """The environments in which some deployment's value of LOC's key comes from LOC
    (one that overrides it in a higher table does not read it)."""
    tables = promoter.raw.get("deployments")
    deployments = tables if isinstance(tables, Mapping) else {}
    key = seed_word(str(loc[-1]))
    spellings = dict.fromkeys((key, service_word(key)))
    readers = []
    for env in environment_names(promoter.raw):
        layers = promoter.layers.get(env) or environment_layers(promoter.raw, env)
        if any(
            _is_in(deployments.get(deployment), env)
            and (found := _origin(own, spellings)) is not None
            and found[0] == loc
            for deployment, own in layers.items()
        ):
            readers.append(env)
    return readers


def _is_in(table: Any, env: str) -> bool:
    chosen = table.get("environments") if isinstance(table, Mapping) else None
    return isinstance(table, Mapping) and (not isinstance(chosen, list) or env in chosen)


def _variable_edit(
    promoter: Promoter, name: str, field_name: str, values: tuple[Any, Any], loc: Loc, written: Any
) -> FieldEdit | Problem:
    variables = referenced_variables(written)
    if len(variables) > 1:
        listed = ", ".join(dict.fromkeys(variables))
        message = f"{name}'s {field_name} is built from several variables ({listed}) in "
        return Problem(loc, message + f"{promoter.to_env}: promotion sets one variable's value")
    variable = variables[0]
    from_value, to_value = values
    value = _variable_value(promoter, written, variable, from_value)
    if value is ABSENT:
        return Problem(
            loc,
            f"{promoter.from_env}'s {field_name} of {name}, {as_text(from_value)!r}, does not "
            f"fit {promoter.to_env}'s {written!r} (only ${{var.{variable}}} can change)",
        )
    where: Loc = ("environments", promoter.to_env, "variables", variable)
    before = _file_variable(promoter.raw, promoter.to_env, variable, defaults=False)
    added = before is ABSENT
    return FieldEdit(
        name, field_name, from_value, to_value, where, None if added else before, value, added
    )


def _variable_value(promoter: Promoter, written: str, variable: str, from_value: Any) -> Any:
    """The value of VARIABLE that makes WRITTEN resolve to FROM_VALUE in --to (ABSENT:
    none does). A value --from gives the variable is kept with its type."""
    if written == f"${{var.{variable}}}":
        return from_value
    around = text_around(written, variable, promoter.to_env)
    if around is None or not isinstance(from_value, str):
        return ABSENT
    before, after = around
    fits = len(from_value) >= len(before) + len(after)
    if not (fits and from_value.startswith(before) and from_value.endswith(after)):
        return ABSENT
    text = from_value[len(before) : len(from_value) - len(after)]
    source_value = _file_variable(promoter.raw, promoter.from_env, variable, defaults=True)
    return source_value if as_text(source_value) == text else text


def _file_variable(raw: Mapping[str, Any], env: str, variable: str, *, defaults: bool) -> Any:
    """VARIABLE's value in ENV as the file gives it (with DEFAULTS: its default else)."""
    environment = raw["environments"][env]
    values = environment.get("variables") if isinstance(environment, Mapping) else None
    if isinstance(values, Mapping) and variable in values:
        return values[variable]
    declared = raw.get("variables")
    spec = declared.get(variable) if isinstance(declared, Mapping) else None
    if defaults and isinstance(spec, Mapping) and "default" in spec:
        return spec["default"]
    return ABSENT
