"""The one resolver of what a command works on: `resolve_target(options, environ)`.

A `Target` is the config file, its environment and variables, the endpoint (URL or the
embedded plane, workspace, API key) and the state location. Every command resolves it
once, from its options (or a saved plan, `planner.cli.saved_target`), and every later
step takes it; nothing resolves any part of it again.

Paths: a relative `[state] url` file path and the default state directory (`state/`, or
a relative $PLANNER_STATE_DIR) are relative to the config file's directory; `--state`
and $PLANNER_STATE to the working directory. The embedded plane's database lives in the
state directory. Endpoint: `--base-url`, else $PLANNER_BASE_URL, else
`[control_plane] base_url`, else the embedded plane; the workspace $PLANNER_TENANT_ID,
else `[control_plane] tenant_id`; the API key only $PLANNER_API_KEY; the dialect
`--dialect`, else $PLANNER_DIALECT, else `[control_plane] dialect`, else `auto` (a URL's
server is asked; the embedded plane speaks the seed's words).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.api.modes import Mode
from planner.api.vocabulary import AUTO, Dialect, chosen_dialect
from planner.cli.endpoint import EMBEDDED_DB_NAME, Endpoint, embedded_timings
from planner.cli.options import WorkspaceOptions
from planner.config.environments import ENVIRONMENTS_HINT, environment_names
from planner.config.loader import load_tables
from planner.config.models import ControlPlaneConfig, StateConfig
from planner.config.reader import read_raw
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY
from planner.errors import ConfigError
from planner.secrets import url_has_password, url_without_password
from planner.state.backend import StateBackend
from planner.state.location import (
    DEFAULT_STATE_DIR,
    STATE_DIR_ENV,
    STATE_ENV,
    STATE_SUFFIX,
    is_postgres_url,
    open_backend,
    state_name,
)


@dataclass(frozen=True)
class StateLocation:
    """A state: a file path or a PostgreSQL URL, its name there and its schema."""

    location: str
    name: str
    schema: str | None = None

    def open(self) -> StateBackend:
        return open_backend(self.location, name=self.name, schema=self.schema)


@dataclass(frozen=True)
class Target:
    """What a command works on, resolved once."""

    config_path: Path
    environment: str | None
    variables: Mapping[str, str]
    state: StateLocation
    endpoint: Endpoint
    state_dir: Path
    control_plane: ControlPlaneConfig = field(default_factory=ControlPlaneConfig)
    state_table: StateConfig = field(default_factory=StateConfig)
    # The config file's data, read once (None: there is no file): the full load reuses it.
    raw: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)

    def take_raw(self) -> Mapping[str, Any] | None:
        """The file's data, for the one full load: let go of here (a cache, not a value of
        the target), so it is not held through the command (8 MiB of a 10,000-deployment
        config); a later load reads the file again."""
        raw = self.raw
        object.__setattr__(self, "raw", None)  # frozen for its values; `raw` is not one
        return raw


def resolve_target(
    options: WorkspaceOptions,
    environ: Mapping[str, str],
    *,
    state_dir: Path | None = None,
) -> Target:
    """The target of OPTIONS. The config may be missing unless named with `-c` (the
    default `planner.toml`: its tables are then the defaults; a command that loads the
    config says it is missing); STATE_DIR: the state directory a saved plan was made with."""
    config_path = Path(options.config)
    environment = options.environment(environ)
    variables = options.variable_values()
    raw = _read_config(config_path, options.is_config_given)
    control_plane, table = _tables(config_path, raw, options, environment, environ)
    state_dir = state_dir or default_state_dir(config_path, environ)
    state = resolve_state(options.state, table, config_path, environ, environment, state_dir)
    endpoint = resolve_endpoint(
        options.base_url, control_plane, environ, state_dir, dialect_flag=options.dialect
    )
    return Target(
        config_path, environment, variables, state, endpoint, state_dir, control_plane, table, raw
    )


def _read_config(path: Path, required: bool) -> Mapping[str, Any] | None:
    if not required and not path.exists():
        return None
    return read_raw(path)


def _tables(
    path: Path,
    raw: Mapping[str, Any] | None,
    options: WorkspaceOptions,
    environment: str | None,
    environ: Mapping[str, str],
) -> tuple[ControlPlaneConfig, StateConfig]:
    """The config's `[control_plane]` (of ENVIRONMENT) and `[state]`. A config with
    environments needs one, unless `--state FILE` names the state (e.g. `state list`)."""
    if raw is None:
        return ControlPlaneConfig(), StateConfig()
    names = environment_names(raw)
    if environment is None and names:
        if options.state and not is_postgres_url(options.state):
            return ControlPlaneConfig(), StateConfig()
        raise ConfigError(
            f"{path} has environments ({', '.join(names)}); choose one", hint=ENVIRONMENTS_HINT
        )
    variables = options.variable_values()
    return load_tables(path, raw, environ=environ, env=environment, variables=variables)


def default_state_dir(config_path: Path, environ: Mapping[str, str]) -> Path:
    """$PLANNER_STATE_DIR, else `state`, relative to the config file's directory."""
    return config_path.parent / (environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR)


def resolve_state(
    flag: str | None,
    table: StateConfig,
    config_path: Path,
    environ: Mapping[str, str],
    environment: str | None,
    state_dir: Path,
) -> StateLocation:
    """`--state`, else $PLANNER_STATE (both as given), else `[state] url` (a file path
    relative to the config's directory), else `<state dir>/<stem>[.<env>].state.json`.
    A `--state` URL without a password that names $PLANNER_STATE's database (the URL a
    saved plan records or a suggested command repeats) connects with $PLANNER_STATE's."""
    name = state_name(config_path, environment, table.name)
    given = with_password_of(flag, environ.get(STATE_ENV)) or environ.get(STATE_ENV)
    if given:
        return StateLocation(given, name, table.schema_)
    if table.url:
        url = table.url if is_postgres_url(table.url) else str(config_path.parent / table.url)
        return StateLocation(url, name, table.schema_)
    stem = config_path.stem + (f".{environment}" if environment else "")
    return StateLocation(str(state_dir / f"{stem}{STATE_SUFFIX}"), name, table.schema_)


def with_password_of(flag: str | None, from_environ: str | None) -> str | None:
    """FLAG, or FROM_ENVIRON when FLAG is that URL with its password left out."""
    if not flag or not from_environ or not is_postgres_url(flag) or url_has_password(flag):
        return flag
    if url_has_password(from_environ) and url_without_password(from_environ) == flag:
        return from_environ
    return flag


def resolve_endpoint(
    base_url_flag: str | None,
    control_plane: ControlPlaneConfig,
    environ: Mapping[str, str],
    state_dir: Path,
    *,
    dialect_flag: str | None = None,
) -> Endpoint:
    """`--base-url`, else $PLANNER_BASE_URL, else the config's URL, else the embedded plane."""
    base_url = base_url_flag or environ.get("PLANNER_BASE_URL") or control_plane.base_url
    tenant_id = environ.get("PLANNER_TENANT_ID") or control_plane.tenant_id
    dialect = resolve_dialect(dialect_flag, control_plane, environ)
    if base_url:
        return Endpoint(base_url, tenant_id, environ.get("PLANNER_API_KEY", ""), dialect=dialect)
    return Endpoint(
        None,
        tenant_id or DEFAULT_TENANT_ID,
        EMBEDDED_API_KEY,
        db_path=state_dir / EMBEDDED_DB_NAME,
        mode=Mode(control_plane.mode),
        timings=embedded_timings(environ),
        dialect=dialect or Dialect.SEED,  # the embedded plane is ours: nothing to ask
    )


DIALECT_ENV = "PLANNER_DIALECT"


def resolve_dialect(
    flag: str | None, control_plane: ControlPlaneConfig, environ: Mapping[str, str]
) -> Dialect | None:
    """`--dialect`, else $PLANNER_DIALECT, else `[control_plane] dialect`: the dialect it
    names, or None for `auto` (the client asks the server)."""
    given = environ.get(DIALECT_ENV)
    if flag is None and given:
        try:
            return chosen_dialect(given)
        except ValueError as error:
            raise ConfigError(f"{DIALECT_ENV}: {error}") from None
    return chosen_dialect(flag or control_plane.dialect or AUTO)
