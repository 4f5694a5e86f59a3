"""A state's location, a file path or a PostgreSQL URL, and its backend.

Which location a command uses is resolved in one place, `planner.cli.target`.
"""

from __future__ import annotations

import os
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


def is_postgres_url(location: str) -> bool:
    """Whether a state location is a PostgreSQL URL (anything else is a file path)."""
    return location.lower().startswith(POSTGRES_SCHEMES)


def state_name(
    config_path: str | os.PathLike[str], environment: str | None, name: str | None
) -> str:
    """A state's name in a shared store: NAME (`[state] name`) or the config's stem, with
    `.<environment>` for one environment of the config."""
    return (name or Path(config_path).stem) + (f".{environment}" if environment else "")


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
            hint="install the extra: pip install 'deployment-planner[postgres]'",
        ) from None
    return PostgresBackend(location, name=name, schema=schema or DEFAULT_SCHEMA)
