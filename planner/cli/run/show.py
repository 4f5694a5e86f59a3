"""`planner show PLANFILE`: render a saved plan as `planner plan` would, without the control
plane (a PostgreSQL state's database is read for the plan key).

The seal is checked first (with the plan key beside the plan's state, or `--state`), so
what is shown is exactly what `planner apply PLANFILE` would do; an altered file is
refused. Nothing is locked, refreshed or written.
"""

from __future__ import annotations

import os
import sys

from planner.cli.commands.show import ShowArgs
from planner.cli.run.plan import render
from planner.cli.saved_target import load_sealed_plan


def run(args: ShowArgs) -> int:
    sealed = load_sealed_plan(args.planfile, args.workspace, os.environ)
    sys.stdout.write(render(sealed.saved.plan, args.output))
    return 0
