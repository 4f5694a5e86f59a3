"""`planner config`: print the resolved config of one environment (secrets masked).

No network; the secrets' environment variables are not needed (their names are shown,
never values).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_environment_options,
    add_format_option,
)


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "config",
        parents=parents,
        help="print the resolved config of one environment",
        description="Print the config as planner reads it for one environment: variables "
        "filled in, templates and defaults merged, secrets masked.",
    )
    add_config_option(parser)
    add_environment_options(parser)
    add_format_option(parser, ["toml", "json"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # imported here: `planner config --help` needs neither the loader nor its models
    from planner.config import load_config
    from planner.config.secret_values import NotingMissing
    from planner.render.config_view import render_config

    options = WorkspaceOptions.of(vars(args))
    config = load_config(
        Path(options.config),
        environ=NotingMissing(os.environ),
        env=options.environment(os.environ),
        variables=options.variable_values(),
    )
    sys.stdout.write(render_config(config, args.format))
    return 0
