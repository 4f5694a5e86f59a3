"""`planner validate`: load the config, print every problem (exit 1) or one OK line (exit 0).

Problems go to stderr through the error boundary (one line each); warnings go to stderr
too; the OK line goes to stdout.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from planner.cli.common import add_config_option
from planner.config import load_config
from planner.render.console import make_console


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "validate",
        parents=parents,
        help="validate the config file (no network)",
        description="Validate the config file without touching the network.",
    )
    add_config_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config = load_config(Path(args.config), environ=os.environ)
    errors = make_console(stderr=True)
    for warning in config.warnings:
        errors.print(f"Warning: {warning}", markup=False)
    count = len(config.deployments)
    noun = "deployment" if count == 1 else "deployments"
    make_console().print(f"OK: {args.config} is valid ({count} {noun})", markup=False)
    return 0
