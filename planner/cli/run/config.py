"""`planner config`: print the resolved config of one environment (secrets masked).

No network; the secrets' environment variables are not needed (their names are shown,
never values).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from planner.cli.commands.config import ConfigArgs
from planner.config import load_config
from planner.config.secret_values import NotingMissing
from planner.render.config_view import render_config


def run(args: ConfigArgs) -> int:
    options = args.workspace
    config = load_config(
        Path(options.config),
        environ=NotingMissing(os.environ),
        env=options.environment(os.environ),
        variables=options.variable_values(),
    )
    sys.stdout.write(render_config(config, args.format))
    return 0
