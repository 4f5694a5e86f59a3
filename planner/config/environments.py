"""One environment of a config: raw file data -> the raw config the loader already reads.

Pure: the environment, `--var` overrides and the environ come in as arguments. Merge
order, lowest first, each a deep merge (tables merge, lists replace): `[defaults]` <
`[environments.E.defaults]` < `[templates.T]` < `[deployments.N]` <
`[environments.E.deployments.N]`; `[environments.E.control_plane]` over
`[control_plane]`. Each layer is interpolated on its own, so a problem names the table
it was written in, and the deployment it ended up in when that is another table.

A config with none of `[variables]`, `[templates]`, `[environments]` and no `${` in
its strings resolves to itself. Templates cannot name templates, so nothing recurses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.config.bounds import ExpansionTooLarge
from planner.config.diagnostics import Loc, Problem, config_error
from planner.config.merge import deep_merge
from planner.config.names import PLAIN_NAME_RULE, is_plain_name
from planner.config.templates import (
    SELECTION_KEYS,
    resolve_templates,
    template_of,
    with_users,
    without_selection,
)
from planner.config.variables import Scope, declared_variables, interpolate, variable_values
from planner.errors import ConfigError, did_you_mean

NEW_SECTIONS = ("variables", "templates", "environments")
ENVIRONMENT_KEYS = ("control_plane", "variables", "defaults", "deployments")
ENVIRONMENTS_HINT = "pick one with --env NAME (or PLANNER_ENV)"
PROBLEMS_HINT = "fix the problems listed above (see docs/guides/environments.md)"
Layer = tuple[Loc, Mapping[str, Any]]


@dataclass(frozen=True)
class Inputs:
    """What a resolution reads besides the file: environment, overrides, environ."""

    env: str | None = None
    overrides: Mapping[str, str] | None = None
    environ: Mapping[str, str] | None = None


def environment_names(raw: Mapping[str, Any]) -> list[str]:
    """The environments a config declares, in file order (empty: it has none)."""
    section = raw.get("environments")
    return list(section) if isinstance(section, Mapping) else []


def resolve_environment(raw: Mapping[str, Any], inputs: Inputs, *, label: str) -> dict[str, Any]:
    """The raw config of one environment; ConfigError listing every problem at once."""
    _check_environment(raw, inputs.env, label)
    problems: list[Problem] = []
    env_table = _environment_table(raw, inputs.env, problems)
    env_loc: Loc = ("environments", inputs.env) if inputs.env else ()
    declared = declared_variables(raw.get("variables"), problems)
    values = variable_values(
        declared,
        env_values=env_table.get("variables"),
        env_loc=(*env_loc, "variables"),
        overrides=inputs.overrides or {},
        environ=inputs.environ or {},
        problems=problems,
    )
    scope = Scope(values=values, env=inputs.env)
    resolved: dict[str, Any] = {}
    try:
        resolved = _resolved(raw, env_table, env_loc, scope, problems)
    except ExpansionTooLarge as too_large:
        problems.append(too_large.problem)
    if problems:
        raise config_error(label, problems, environment=inputs.env, hint=PROBLEMS_HINT)
    return resolved


def _resolved(
    raw: Mapping[str, Any],
    env_table: Mapping[str, Any],
    env_loc: Loc,
    scope: Scope,
    problems: list[Problem],
) -> dict[str, Any]:
    """RAW's sections interpolated, the environment's tables merged in; `[defaults]`
    counts once per deployment (it is merged into each)."""
    resolved = {key: value for key, value in raw.items() if key not in NEW_SECTIONS}
    defaults_size = 0
    for key in ("control_plane", "defaults"):
        spent = scope.budget.spent
        merged = _layered(raw, env_table, env_loc, key, scope, problems)
        defaults_size = scope.budget.spent - spent
        if merged is not None:
            resolved[key] = merged
    if "deployments" in raw:
        found = _deployments(raw, env_table, env_loc, scope, problems, defaults_size)
        resolved["deployments"] = found
    return resolved


def deployment_layers(raw: Mapping[str, Any], env: str | None) -> dict[str, list[Layer]]:
    """For each deployment, the tables above its own that set its values, highest first:
    the environment's override, the deployment itself, its template (for diagnostics)."""
    tables = raw.get("deployments")
    if not isinstance(tables, Mapping):
        return {}
    found_templates = raw.get("templates")
    templates = found_templates if isinstance(found_templates, Mapping) else {}
    env_table = raw["environments"].get(env) if env and "environments" in raw else None
    overrides = env_table.get("deployments") if isinstance(env_table, Mapping) else None
    layers: dict[str, list[Layer]] = {}
    for name, own in tables.items():
        if not isinstance(own, Mapping):
            continue
        found: list[Layer] = []
        if isinstance(overrides, Mapping) and isinstance(overrides.get(name), Mapping):
            found.append((("environments", str(env), "deployments", name), overrides[name]))
        found.append((("deployments", name), own))
        template = own.get("template")
        if isinstance(template, str) and isinstance(templates.get(template), Mapping):
            found.append((("templates", template), templates[template]))
        layers[name] = found
    return layers


def _check_environment(raw: Mapping[str, Any], env: str | None, label: str) -> None:
    names = environment_names(raw)
    problems = [Problem(("environments", name), PLAIN_NAME_RULE) for name in names]
    problems = [problem for problem in problems if not is_plain_name(str(problem.loc[1]))]
    if problems:
        raise config_error(label, problems, environment=None, hint=PROBLEMS_HINT)
    if env is None and names:
        raise ConfigError(
            f"{label} has environments ({', '.join(names)}); choose one",
            hint=ENVIRONMENTS_HINT,
        )
    if env is not None and not names:
        raise ConfigError(
            f"{label} has no [environments], so --env {env} cannot be used",
            hint="drop --env (and PLANNER_ENV), or add [environments.<name>] tables",
        )
    if env is not None and env not in names:
        raise ConfigError(
            f"{label}: no environment '{env}'{did_you_mean(env, names)}",
            hint=f"the environments are: {', '.join(names)}",
        )


def _environment_table(
    raw: Mapping[str, Any], env: str | None, problems: list[Problem]
) -> Mapping[str, Any]:
    if env is None:
        return {}
    table = raw["environments"][env]
    loc: Loc = ("environments", env)
    if not isinstance(table, Mapping):
        problems.append(Problem(loc, "must be a table"))
        return {}
    for key in table:
        if key not in ENVIRONMENT_KEYS:
            hint = did_you_mean(key, ENVIRONMENT_KEYS)
            problems.append(Problem((*loc, key), f"unknown key '{key}'{hint}"))
    return table


def _layered(
    raw: Mapping[str, Any],
    env_table: Mapping[str, Any],
    env_loc: Loc,
    key: str,
    scope: Scope,
    problems: list[Problem],
) -> Any:
    """`raw[key]` with the environment's table of the same name merged over it."""
    base = interpolate(raw[key], scope, (key,), problems) if key in raw else None
    if key not in env_table:
        return base
    over = interpolate(env_table[key], scope, (*env_loc, key), problems)
    if not isinstance(over, Mapping):
        problems.append(Problem((*env_loc, key), "must be a table"))
        return base
    return deep_merge(base, over) if isinstance(base, Mapping) else over


def _deployments(
    raw: Mapping[str, Any],
    env_table: Mapping[str, Any],
    env_loc: Loc,
    scope: Scope,
    problems: list[Problem],
    defaults_size: int,
) -> Any:
    tables = raw["deployments"]
    if not isinstance(tables, Mapping):
        return tables  # reported by the loader
    template_problems: list[Problem] = []
    sizes: dict[str, int] = {}
    templates = resolve_templates(raw.get("templates"), scope, template_problems, sizes)
    overrides = _overrides(env_table.get("deployments"), tables, env_loc, problems)
    resolved: dict[str, Any] = {}
    names = environment_names(raw)
    for name, own in tables.items():
        loc: Loc = ("deployments", name)
        if not isinstance(own, Mapping):
            resolved[name] = own  # reported by the loader
            continue
        template = template_of(own, templates, loc, problems)
        if not _is_in_environment(own, scope.env, names, loc, problems):
            continue
        scope.budget.spend(defaults_size + sizes.get(str(own.get("template")), 0), loc)
        layers = [template, interpolate(without_selection(own), scope, loc, problems)]
        if name in overrides:
            override_loc = (*env_loc, "deployments", name)
            layers.append(interpolate(overrides[name], scope, override_loc, problems))
        resolved[name] = _merged(layers)
    problems.extend(with_users(template_problems, tables, resolved))
    return resolved


def _merged(layers: list[Mapping[str, Any]]) -> dict[str, Any]:
    present = [layer for layer in layers if layer]  # an empty one would only copy again
    if len(present) == 1:  # most deployments: their own table, copied (as deep_merge would)
        return dict(present[0])
    merged: dict[str, Any] = {}
    for layer in present:
        merged = deep_merge(merged, layer)
    return merged


def _is_in_environment(
    own: Mapping[str, Any], env: str | None, names: list[str], loc: Loc, problems: list[Problem]
) -> bool:
    chosen = own.get("environments")
    if chosen is None:
        return True
    loc = (*loc, "environments")
    if not names:
        problems.append(Problem(loc, "the config has no [environments] to choose from"))
        return True
    if not isinstance(chosen, list) or not all(isinstance(item, str) for item in chosen):
        problems.append(Problem(loc, "must be a list of environment names"))
        return True
    for index, item in enumerate(chosen):
        if item not in names:
            hint = did_you_mean(item, names)
            problems.append(Problem((*loc, index), f"unknown environment '{item}'{hint}"))
    return env in chosen


def _overrides(
    raw: Any, tables: Mapping[str, Any], env_loc: Loc, problems: list[Problem]
) -> Mapping[str, Mapping[str, Any]]:
    """`[environments.E.deployments]`: each must override a deployment that exists."""
    if raw is None:
        return {}
    loc: Loc = (*env_loc, "deployments")
    if not isinstance(raw, Mapping):
        problems.append(Problem(loc, "must be a table of deployments by name"))
        return {}
    found: dict[str, Mapping[str, Any]] = {}
    for name, table in raw.items():
        if name not in tables:
            message = f"no deployment '{name}' to override{did_you_mean(name, tables)}"
            problems.append(Problem((*loc, name), message))
        elif not isinstance(table, Mapping):
            problems.append(Problem((*loc, name), "must be a table"))
        elif any(key in table for key in SELECTION_KEYS):
            problems.append(Problem((*loc, name), "cannot set 'template' or 'environments'"))
        else:
            found[name] = table
    return found
