"""Open the control-plane client for a command from its `-c` and `--base-url` options."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from planner.api.client import ControlPlaneClient
from planner.cli.common import DEFAULT_CONFIG
from planner.cli.endpoint import open_client, state_dir_from
from planner.config.reader import read_raw
from planner.errors import ConfigError


def open_cli_client(args: argparse.Namespace) -> ControlPlaneClient:
    """For commands that need only `[control_plane]` from the config (`providers`, `repos`).

    The default `planner.toml` may be missing; a file named with `-c` must exist.
    """
    config_path = Path(args.config)
    table = read_control_plane_table(config_path, required=args.config != DEFAULT_CONFIG)
    return open_client(args.base_url, table, os.environ, state_dir_from(os.environ))


def read_control_plane_table(path: Path, *, required: bool) -> dict[str, Any] | None:
    """Just the `[control_plane]` table of a TOML or JSON config (None when absent),
    read by the one config reader; a missing file is fine unless `required`."""
    if not required and not path.exists():
        return None
    table = read_raw(path).get("control_plane")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: control_plane must be a table")
    return table
