"""Where a config file's state lives: a file path or a PostgreSQL URL, and its backend."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planner.errors import StateError
from planner.secrets import redact_url
from planner.state.backend import StateBackend
from planner.state.localfile import LocalFileBackend

STATE_ENV = "PLANNER_STATE"
STATE_DIR_ENV = "PLANNER_STATE_DIR"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DEFAULT_SCHEMA = "planner"
DEFAULT_STATE_DIR = "state"
STATE_SUFFIX = ".state.json"


def default_state_path(
    config_path: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    *,
    environment: str | None = None,
) -> Path:
    """`<dir>/<config stem>.state.json` (`<config stem>.<environment>.state.json` for one
    environment of the config); dir is $PLANNER_STATE_DIR, else `state/`.

    The result is relative to the working directory unless the directory is absolute.
    """
    environ = os.environ if env is None else env
    directory = environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR
    stem = Path(config_path).stem + (f".{environment}" if environment else "")
    return Path(directory) / f"{stem}{STATE_SUFFIX}"


def resolve_state_path(
    state: str | None,
    config_path: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    *,
    environment: str | None = None,
) -> Path:
    """The `--state` path when given, else the default for the config file (and environment)."""
    if state:
        return Path(state)
    return default_state_path(config_path, env, environment=environment)


def is_postgres_url(location: str) -> bool:
    """Whether a state location is a PostgreSQL URL (anything else is a file path)."""
    return location.lower().startswith(POSTGRES_SCHEMES)


def state_name(
    config_path: str | os.PathLike[str], environment: str | None, name: str | None
) -> str:
    """A state's name in a shared store: NAME (`[state] name`) or the config's stem, with
    `.<environment>` for one environment of the config."""
    return (name or Path(config_path).stem) + (f".{environment}" if environment else "")


def resolve_state_location(
    flag: str | None,
    configured: str | None,
    config_path: str | os.PathLike[str],
    env: Mapping[str, str] | None = None,
    *,
    environment: str | None = None,
) -> str:
    """`--state`, else $PLANNER_STATE, else `[state] url`, else the default state file."""
    environ = os.environ if env is None else env
    chosen = flag or environ.get(STATE_ENV) or configured
    return chosen or str(default_state_path(config_path, environ, environment=environment))


def open_backend(location: str, *, name: str, schema: str | None = None) -> StateBackend:
    """The backend of LOCATION: PostgreSQL for a `postgresql://` URL (state NAME in SCHEMA),
    else the file at that path."""
    if not is_postgres_url(location):
        return LocalFileBackend(location)
    try:
        from planner.state.postgres import PostgresBackend  # psycopg: the `postgres` extra
    except ImportError:
        raise StateError(
            f"the state {redact_url(location)} is in PostgreSQL, which needs psycopg",
            hint="install the extra: pip install 'planner[postgres]'",
        ) from None
    return PostgresBackend(location, name=name, schema=schema or DEFAULT_SCHEMA)
