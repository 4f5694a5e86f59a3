"""A state's location, a file path or a PostgreSQL URL, and its backend.

Which location a command uses is resolved in one place, `planner.cli.target`.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from planner.errors import StateError
from planner.secrets import redact_url
from planner.state.backend import StateBackend
from planner.state.document import StateDocument
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


def require_state(backend: StateBackend) -> StateDocument:
    """The stored state, or a StateError naming where it was looked for (for the commands
    that edit a state and never create one: `state rm`, `release`, ...)."""
    doc = backend.read()
    if doc is None:
        kind = "state" if is_postgres_url(backend.location) else "state file"
        raise StateError(
            f"no {kind} at {backend.location}",
            hint="nothing is managed yet (`planner apply` creates the state), "
            "or pass --state PATH / -c FILE to point at another one",
        )
    return doc


def check_postgres_url(url: str) -> None:
    """Refuse URL before libpq reads it when libpq would misread it and print a piece of
    the password (a host after an unencoded `@` in it) or the whole URL (one that does
    not parse); the error names neither."""
    where = f"the PostgreSQL state URL (--state, {STATE_ENV} or [state] url)"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (parsed on access: a bad port raises here)
    except ValueError as error:
        raise StateError(
            f"{where} is not a valid URL: {error}",
            hint="check its host (an IPv6 address in [brackets]) and port, and "
            "percent-encode special characters in the user and password",
        ) from None
    if "@" in parts.netloc.rpartition("@")[0]:
        raise StateError(
            f"{where} has an unencoded '@' in its user or password",
            hint="write it as %40 (e.g. postgresql://user:p%40ss@host/db), or give the "
            "password in PGPASSWORD or ~/.pgpass",
        )


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
    check_postgres_url(location)
    try:
        from planner.state.postgres import PostgresBackend  # psycopg: the `postgres` extra
    except ImportError:
        raise StateError(
            f"the state {redact_url(location)} is in PostgreSQL, which needs psycopg",
            hint="install the extra: pip install 'deployment-planner[postgres]'",
        ) from None
    return PostgresBackend(location, name=name, schema=schema or DEFAULT_SCHEMA)
