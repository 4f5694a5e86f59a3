"""Where a config file's state lives by default."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STATE_DIR_ENV = "PLANNER_STATE_DIR"
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
