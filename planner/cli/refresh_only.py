"""`planner apply --refresh-only`: record what changed outside the planner into the state.

The one way drift gets into the state (every plan is read-only): lock, refresh, show the
refresh-only plan, ask for `yes` on a terminal (or `--auto-approve`), then write the
observed values of the drifted fields. Nothing is sent to the control plane but reads.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.cli.exits import EXIT_OK
from planner.cli.options import RunOptions
from planner.cli.prompt import confirm
from planner.cli.target import Target
from planner.cli.workspace import Workspace
from planner.errors import PlanError
from planner.plan.diff import PlanOptions
from planner.plan.model import Plan
from planner.plan.refresh import record_drift
from planner.render.console import make_console
from planner.render.output import write_warnings


async def run_refresh_only(
    target: Target, options: PlanOptions, run: RunOptions, *, show: Callable[[Plan], None]
) -> int:
    """Plan refresh-only, confirm when there is drift, record it; exit 0."""
    async with Workspace.open(target) as ws:
        write_warnings(ws.config.warnings)
        with ws.lock("apply", run.lock_timeout, run.lock_lease):
            doc = ws.read_state()
            plan, observed = await ws.make_plan(options, doc)
            show(plan)
            if plan.has_errors:
                raise PlanError("the plan has errors (listed above): nothing was recorded")
            if not plan.drift:
                return EXIT_OK
            confirm(run.auto_approve, "apply", output_format=run.format)
            names = record_drift(doc, plan.drift, observed, ws.digest_key(doc))
            ws.backend.write(doc)
    make_console().print(
        f"\nRecorded what changed outside the planner into the state {ws.backend.location} "
        f"({', '.join(names)}). Nothing was changed remotely.",
        markup=False,
    )
    return EXIT_OK
