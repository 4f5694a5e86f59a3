"""`planner plan`: show, field by field, what apply would change (and optionally save it).

Every plan is read-only and takes no lock: it reads one consistent snapshot of the state
(a version with its operation log) and never waits for or fails on a lock; a writer that
holds the lock meanwhile is named in the plan (`lock`). The state is never written
(`--refresh-only` included: `planner apply --refresh-only` records the drift), except by
`--out` on a state that does not exist yet: the new, empty state is created if still
absent (of two plans creating it at once, one writes it and the other reads it back), so
the saved plan has a lineage to be tied to (saving it: `planner.cli.run.plan_out`).
Exit codes: 0 (with `--detailed-exitcode`: no changes), 2 changes with
`--detailed-exitcode` (with `--refresh-only`: drift, every time until it is recorded),
1 error, including a plan that has errors (printed first).
"""

from __future__ import annotations

import os
import sys
from typing import Protocol

from planner.cli.collector import long_lived_objects
from planner.cli.commands.plan import PlanArgs
from planner.cli.exits import EXIT_CHANGES, EXIT_ERROR, EXIT_OK
from planner.cli.options import OutputOptions
from planner.cli.run_async import run_async
from planner.cli.step_summary import append_step_summary
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.errors import PlanError
from planner.plan.diff import PlanOptions
from planner.plan.model import HeldLock, Plan
from planner.plan.refresh import Observed
from planner.render.json import render_json
from planner.render.markdown import render_markdown
from planner.render.output import write_warnings
from planner.render.text import render_text
from planner.state.document import StateDocument
from planner.state.locking import LockInfo


class PlanOut(Protocol):
    """`--out PLANFILE`: the saved plan (`planner.cli.run.plan_out.PlanFile`)."""

    def check_target(self, target: Target) -> None:
        """Refuse a PLANFILE that is not a new file or a saved plan, before planning."""

    def seal(
        self,
        ws: Workspace,
        plan: Plan,
        doc: StateDocument,
        observed: Observed,
        options: PlanOptions,
    ) -> None:
        """Keep PLAN, made of DOC and OBSERVED, sealed with the state's plan key."""

    def report(self, output: OutputOptions, state_args: tuple[str, ...]) -> None:
        """Write the sealed plan (none: the plan had errors) and say so; the apply command
        it suggests repeats STATE_ARGS."""


def run(args: PlanArgs) -> int:
    output = args.output
    options = PlanOptions(
        only=frozenset(args.only),
        exclude=frozenset(args.exclude),
        replace=frozenset(args.replace),
        destroy=args.destroy,
        refresh_only=args.refresh_only,
        command_args=args.workspace.command_args(os.environ),
    )
    out = plan_out(args.out)
    with long_lived_objects():  # the config file's data
        target = resolve_target(args.workspace, os.environ)
    if out is not None:
        out.check_target(target)
    plan = run_async(run_plan(target, options, out))
    sys.stdout.write(render(plan, output))
    sys.stdout.flush()
    append_step_summary(lambda: render_markdown(plan, verbose=output.verbose))
    if out is not None:
        out.report(output, args.workspace.state_args())
    if plan.has_errors:
        return EXIT_ERROR
    if args.detailed_exitcode and is_changed(plan):
        return EXIT_CHANGES
    return EXIT_OK


def plan_out(path: str | None) -> PlanOut | None:
    """`--out PATH` (None: not given)."""
    if path is None:
        return None
    # A saved plan's modules (its models, the seal) are imported only to save one.
    from planner.cli.run.plan_out import PlanFile

    return PlanFile(path)


def is_changed(plan: Plan) -> bool:
    """What `--detailed-exitcode` reports as 2: apply would do something (a refresh-only
    plan: record drift). In-progress rollouts and unmanaged deployments are not changes."""
    if plan.mode == "refresh-only":
        return bool(plan.drift)
    return plan.has_changes


async def run_plan(target: Target, options: PlanOptions, out: PlanOut | None) -> Plan:
    """The plan of one snapshot of the state, naming a writer that holds the lock."""
    # the config, the state, the live deployments and the plan all live as long as the
    # command: the cyclic collector's passes over them would find nothing to free
    with long_lived_objects():
        async with Workspace.open(target) as ws:
            write_warnings(ws.config.warnings)
            writer = ws.backend.lock_info()
            doc = ws.read_state()
            plan, observed = await plan_naming_lock(ws, options, doc, writer)
            if out and doc.serial == 0 and not plan.has_errors:  # no state yet: make one
                check_not_being_created(writer)
                stored = ws.create_state(doc)
                if stored.lineage != doc.lineage:  # another plan created it first: use it
                    doc = stored
                    plan, observed = await plan_naming_lock(ws, options, doc, writer)
            if out and not plan.has_errors:
                out.seal(ws, plan, doc, observed, options)
    return plan


async def plan_naming_lock(
    ws: Workspace, options: PlanOptions, doc: StateDocument, writer: LockInfo | None
) -> tuple[Plan, Observed]:
    """The plan of DOC, naming WRITER, the writer holding the lock as it was read."""
    plan, observed = await ws.make_plan(options, doc, whole_workspace=True)
    return plan.model_copy(update={"lock": held_lock(writer)}), observed


def check_not_being_created(writer: LockInfo | None) -> None:
    """Refuse to create the state a writer holding the lock is about to create (its
    first write would then find another state in its place)."""
    if writer is not None:
        raise PlanError(
            f"the state does not exist yet and {writer.who} (pid {writer.pid}) is creating it "
            f"({writer.operation}, since {writer.created}): a saved plan needs it to exist",
            hint="plan with --out again once that run has finished",
        )


def held_lock(info: LockInfo | None) -> HeldLock | None:
    """What the plan says of the writer holding the lock (None: the lock is free)."""
    if info is None:
        return None
    holder = f"{info.who} (pid {info.pid})"
    return HeldLock(holder=holder, operation=info.operation, since=info.created, id=info.id)


def render(plan: Plan, output: OutputOptions) -> str:
    if output.format == "json":
        return render_json(plan)
    if output.format == "markdown":
        return render_markdown(plan, verbose=output.verbose)
    return render_text(plan, color=is_color_terminal(), verbose=output.verbose)


def is_color_terminal() -> bool:
    """Colour (and bold) only on a terminal, and never with NO_COLOR set."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")
