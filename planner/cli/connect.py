"""Open the control-plane client for a command from its `-c` and `--base-url` options."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from planner.api.client import ControlPlaneClient
from planner.api.endpoint import open_client, read_control_plane_table, state_dir_from

DEFAULT_CONFIG = "planner.toml"


def open_cli_client(args: argparse.Namespace) -> ControlPlaneClient:
    """For commands that need only `[control_plane]` from the config (`providers`, `repos`).

    The default `planner.toml` may be missing; a file named with `-c` must exist.
    """
    config_path = Path(args.config)
    table = read_control_plane_table(config_path, required=args.config != DEFAULT_CONFIG)
    return open_client(args.base_url, table, os.environ, state_dir_from(os.environ))
