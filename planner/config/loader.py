"""`load_config`: a TOML/JSON file -> validated desired state, or every problem at once.

Nothing here touches the network. Stages: read the file, walk the raw data for unknown
keys / nulls / duplicates, validate `[control_plane]` and `[defaults]`, then each
deployment (merged with the defaults). Any problem anywhere raises one ConfigError whose
details hold one line per problem: `<file>: <path>: <message>`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from planner.api.rules import Mode
from planner.config.deployment import Defaults, load_deployment, validate_model, without_name
from planner.config.desired import DesiredDeployment
from planner.config.diagnostics import Loc, Problem, config_error, format_loc, has_path
from planner.config.environments import Inputs, Layer, deployment_layers, resolve_environment
from planner.config.keys import check_keys, check_raw_values
from planner.config.models import (
    Config,
    ConfigFile,
    ControlPlaneConfig,
    DefaultsSpec,
    DeploymentSpec,
    StateConfig,
)
from planner.config.policies import load_policies
from planner.config.reader import read_raw
from planner.config.secret_values import missing_variables_hint, resolve_secrets
from planner.config.spellings import both_spellings
from planner.config.variables import given_values, referenced_variables, value_source

TableT = TypeVar("TableT", ControlPlaneConfig, StateConfig)
CONFIG_HINT = "fix the problems listed above (the format is described in docs/guides/config.md)"


def load_config(
    path: Path,
    *,
    environ: Mapping[str, str],
    mode: Mode | str | None = None,
    env: str | None = None,
    variables: Mapping[str, str] | None = None,
    raw: Mapping[str, Any] | None = None,
) -> Config:
    """Load and validate one environment of a config file (`env`, None when it has none);
    `variables` are `--var` overrides; `mode` overrides `[control_plane] mode`; RAW is
    the file's data when it was read already (`read_raw(path)`)."""
    label = str(path)
    file_data = read_raw(path) if raw is None else raw
    inputs = Inputs(env=env, overrides=variables, environ=environ)
    raw = resolve_environment(file_data, inputs, label=label)
    # Raw values are checked in the file as written: resolving keeps no duplicate keys.
    problems: list[Problem] = [*check_raw_values(file_data), *_check_top_level(raw)]
    control_plane = _load_table(ControlPlaneConfig, "control_plane", raw, problems)
    state = _load_table(StateConfig, "state", raw, problems)
    if mode is not None:
        control_plane = control_plane.model_copy(update={"mode": Mode(mode)})
    origins = SecretOrigins(file_data, env, variables or {}, environ)
    defaults, warnings = _load_defaults(_section(raw, "defaults"), problems, label, origins)
    defaults = _with_environment_defaults(defaults, file_data, env)
    deployments: dict[str, DesiredDeployment] = {}
    layers: dict[str, list[Layer]] | None = None  # found when a literal secret needs them
    deployment_mode = Mode(control_plane.mode)

    for name, own in _deployment_tables(_section(raw, "deployments"), problems):
        loaded = load_deployment(name, own, defaults, mode=deployment_mode, environ=environ)
        if loaded.problems:
            problems.extend(_prefixed(("deployments", name), loaded.problems))
        if loaded.literal_secrets:
            layers = deployment_layers(file_data, env) if layers is None else layers
            warnings.extend(
                literal_warning(
                    label,
                    ("deployments", name, "secrets", secret),
                    origins.of(layers.get(name, []), secret),
                )
                for secret in loaded.literal_secrets
            )
        if loaded.desired is not None:
            deployments[name] = loaded.desired
    problems.extend(_shared_remote_names(deployments))
    policies = load_policies(file_data, env, problems)
    if problems:
        ordered = _in_file_order(problems, raw)
        placed = _at_origin(ordered, deployment_layers(file_data, env))
        hint = missing_variables_hint(placed, CONFIG_HINT)
        raise config_error(label, placed, environment=env, hint=hint)
    return Config(
        path=path,
        control_plane=control_plane,
        deployments=deployments,
        warnings=warnings,
        environment=env,
        state=state,
        policies=policies,
        given_variables=given_values(file_data.get("variables"), variables or {}, environ),
    )


def literal_warning(label: str, loc: Loc, origin: str = "the config file") -> str:
    """A secret given as a value, not `{ env = ... }`; ORIGIN says where the value came
    from (the file itself, or the sources of the variables it references)."""
    secret = loc[-1]
    where = "written in the config file" if origin == "the config file" else f"from {origin}"
    return (
        f"{label}: {format_loc(loc)}: secret value {where}; "
        f'prefer {secret} = {{ env = "{secret}" }} to read it from the environment'
    )


@dataclass(frozen=True)
class SecretOrigins:
    """Where a secret's value came from, for its warning: the file, or the sources of the
    `${var.…}` it references (`--var`, `--var-file`, `PLANNER_VAR_*`, the file)."""

    file_data: Mapping[str, Any]
    env: str | None
    overrides: Mapping[str, str]
    environ: Mapping[str, str]

    def of(self, layers: list[Layer], secret: str) -> str:
        written = _written_secret(layers, secret)
        sources = [
            value_source(name, self.file_data, self.env, self.overrides, self.environ)
            for name in referenced_variables(written)
        ]
        return ", ".join(dict.fromkeys(sources)) or "the config file"

    def defaults_layers(self) -> list[Layer]:
        """`[environments.E.defaults]` over `[defaults]`, as the file writes them."""
        environments = self.file_data.get("environments")
        table = environments.get(self.env) if isinstance(environments, Mapping) else None
        found = [table.get("defaults")] if self.env and isinstance(table, Mapping) else []
        found.append(self.file_data.get("defaults"))
        return [((), layer) for layer in found if isinstance(layer, Mapping)]


def _written_secret(layers: list[Layer], secret: str) -> Any:
    """SECRET's value as the file writes it (before `${var.…}` expansion), from the
    highest layer that sets it."""
    for _, table in layers:
        secrets = table.get("secrets")
        if isinstance(secrets, Mapping) and secret in secrets:
            return secrets[secret]
    return None


def _section(raw: Mapping[str, Any], key: str) -> Any:
    value = raw.get(key)
    return {} if value is None else value  # a null is reported by the top-level walk


def _check_top_level(raw: Mapping[str, Any]) -> list[Problem]:
    shallow = {key: {} if isinstance(value, Mapping) else value for key, value in raw.items()}
    return list(check_keys(ConfigFile, shallow, ()))


def _load_table(
    model: type[TableT], key: str, file: Mapping[str, Any], problems: list[Problem]
) -> TableT:
    """The top-level table KEY (`[control_plane]`, `[state]`), its problems added."""
    raw = _section(file, key)
    if not isinstance(raw, Mapping):
        problems.append(Problem((key,), "must be a table"))
        return model()
    problems.extend(check_keys(model, raw, (key,)))
    loaded, found = validate_model(model, raw)
    problems.extend(_prefixed((key,), found))
    return loaded or model()


def load_tables(
    path: Path,
    raw: Mapping[str, Any],
    *,
    environ: Mapping[str, str],
    env: str | None = None,
    variables: Mapping[str, str] | None = None,
) -> tuple[ControlPlaneConfig, StateConfig]:
    """Only `[control_plane]` (of environment ENV) and `[state]` of the config at PATH
    (RAW: its data), without its deployments; ConfigError naming the field."""
    light = {k: v for k, v in raw.items() if k not in ("deployments", "templates", "defaults")}
    inputs = Inputs(env=env, overrides=variables, environ=environ)
    resolved = resolve_environment(light, inputs, label=str(path))
    problems: list[Problem] = []
    control_plane = _load_table(ControlPlaneConfig, "control_plane", resolved, problems)
    state = _load_table(StateConfig, "state", resolved, problems)
    if problems:
        raise config_error(str(path), problems, environment=env, hint=CONFIG_HINT)
    return control_plane, state


def _load_defaults(
    raw: Any, problems: list[Problem], label: str, origins: SecretOrigins
) -> tuple[Defaults, list[str]]:
    loc: Loc = ("defaults",)
    if not isinstance(raw, Mapping):
        problems.append(Problem(loc, "must be a table"))
        return Defaults(), []
    found = list(check_keys(DefaultsSpec, raw, loc))
    found += _prefixed(loc, both_spellings(raw))
    found += _prefixed(loc, validate_model(DefaultsSpec, raw)[1])
    secrets = resolve_secrets(raw.get("secrets", {}), deployment="", loc=(), environ=None)
    found += _prefixed((*loc, "secrets"), secrets.problems)
    problems.extend(found)
    layers = origins.defaults_layers()
    warnings = [
        literal_warning(label, (*loc, "secrets", s), origins.of(layers, s))
        for s in secrets.literal_names
    ]
    relative = tuple(problem.loc[1:] for problem in found)
    return Defaults(raw=raw, problem_locs=relative), warnings


def _with_environment_defaults(defaults: Defaults, file_data: Any, env: str | None) -> Defaults:
    tables = file_data.get("environments")
    table = tables.get(env) if env and isinstance(tables, Mapping) else None
    found = table.get("defaults") if isinstance(table, Mapping) else None
    if not isinstance(found, Mapping):
        return defaults
    return replace(defaults, environment=env, environment_raw=found)


def _deployment_tables(
    raw: Any, problems: list[Problem]
) -> Iterable[tuple[str, Mapping[str, Any]]]:
    if not isinstance(raw, Mapping):
        problems.append(Problem(("deployments",), "must be a table of deployments by name"))
        return
    for name, own in raw.items():
        if not isinstance(own, Mapping):
            problems.append(Problem(("deployments", name), "must be a table"))
            continue
        problems.extend(check_keys(DeploymentSpec, without_name(own), ("deployments", name)))
        yield name, own


def _shared_remote_names(deployments: Mapping[str, DesiredDeployment]) -> list[Problem]:
    """Two deployments cannot have one name in the workspace (`name`, or the table key)."""
    holders: dict[str, str] = {}
    problems = []
    for address, desired in deployments.items():
        first = holders.setdefault(desired.api_name, address)
        if first != address:
            loc: Loc = ("deployments", address)
            if desired.remote_name is not None:
                loc = (*loc, "name")
            message = f"'{desired.api_name}' is also the name of deployment {first}"
            problems.append(Problem(loc, message))
    return problems


def _prefixed(prefix: Loc, problems: Iterable[Problem]) -> list[Problem]:
    return [Problem((*prefix, *problem.loc), problem.message) for problem in problems]


def _in_file_order(problems: list[Problem], raw: Mapping[str, Any]) -> list[Problem]:
    """Problems grouped by section and deployment, in the order the file declares them."""
    sections = {key: index for index, key in enumerate(raw)}
    names = raw.get("deployments")
    order = {name: index for index, name in enumerate(names)} if isinstance(names, Mapping) else {}

    def position(problem: Problem) -> tuple[int, int]:
        section = sections.get(str(problem.loc[0]), -1) if problem.loc else -1
        is_deployment = problem.loc[:1] == ("deployments",) and len(problem.loc) > 1
        return section, order.get(str(problem.loc[1]), -1) if is_deployment else -1

    return sorted(problems, key=position)


def _at_origin(problems: list[Problem], layers: Mapping[str, list[Layer]]) -> list[Problem]:
    """A deployment's problem at the table that set the value (environment override,
    template), naming the deployment, when that is not the deployment's own table."""
    placed = []
    for problem in problems:
        name, rest = problem.loc[1:2], problem.loc[2:]
        if problem.loc[:1] != ("deployments",) or not name or not rest:
            placed.append(problem)
            continue
        origin = next(
            (loc for loc, table in layers.get(str(name[0]), []) if has_path(table, rest)), None
        )
        if origin is None or origin == problem.loc[:2]:
            placed.append(problem)
        else:
            message = f"{problem.message} (in deployment {name[0]})"
            placed.append(Problem((*origin, *rest), message))
    return placed
