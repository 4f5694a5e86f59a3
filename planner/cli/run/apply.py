"""`planner apply [PLANFILE]`: converge the control plane to the config.

Without PLANFILE: lock the state, plan (adopting what an interrupted apply created, which
the plan lists as recovered), show the plan, ask for `yes` on a terminal (or
`--auto-approve`), execute. With PLANFILE: execute exactly that saved plan, without
asking, unless it is stale (`planner.cli.run.apply_saved`). The state lock is held for
the whole run. Exit codes: 0 done, 1 an error or a deployment failed, 130 interrupted
(Ctrl-C), 143 terminated (SIGTERM): after a first signal, requests in flight finish and
are recorded first (`planner.cli.signals`). `--format json` streams NDJSON events on
stdout instead of the text (`planner.render.apply_view`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

from planner.apply import ApplyOptions, ApplyResult
from planner.apply.events import Operation
from planner.apply.executable import executable
from planner.apply.reporter import Reporter
from planner.cli.collector import long_lived_objects
from planner.cli.commands.apply import ApplyArgs
from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.options import RunOptions
from planner.cli.prompt import confirm
from planner.cli.refresh_only import run_refresh_only
from planner.cli.signals import StopSignals
from planner.cli.step_summary import append_step_summary
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.errors import PlanError
from planner.plan.diff import PlanOptions
from planner.plan.model import Plan
from planner.plan.redeploys import has_journalled_redeploys
from planner.render.apply_markdown import render_apply_markdown
from planner.render.apply_view import ApplyView, make_view
from planner.render.output import write_warnings
from planner.state.document import IntentOp, StateDocument

# A plan made elsewhere and checked against the state in the lock (a saved plan's check,
# `planner.cli.run.apply_saved`), instead of one made now from PlanOptions.
PlanCheck = Callable[[Workspace, StateDocument], Awaitable[Plan]]


def run(args: ApplyArgs) -> int:
    if args.planfile:
        # A saved plan's modules (its models, the seal) are imported only to apply one.
        from planner.cli.run.apply_saved import run_saved

        return run_saved(args.planfile, args.workspace, args.options)
    workspace, options = args.workspace, args.options
    plan_options = PlanOptions(
        only=frozenset(args.only),
        exclude=frozenset(args.exclude),
        replace=frozenset(args.replace),
        refresh_only=args.refresh_only,
        command_args=workspace.command_args(os.environ),
    )
    with long_lived_objects():  # the config file's data
        target = resolve_target(workspace, os.environ)
    if args.refresh_only:
        view = make_view(options.format, "apply")
        return asyncio.run(run_refresh_only(target, plan_options, options, show=view.show_plan))
    return asyncio.run(run_apply(target, options, plan_options, operation="apply"))


async def run_apply(
    target: Target, options: RunOptions, source: PlanOptions | PlanCheck, *, operation: Operation
) -> int:
    """Lock, plan (or check the saved plan), confirm, execute, report; the exit code."""
    view = make_view(options.format, operation)
    signals = StopSignals(view.stopping)
    try:
        with signals.installed():
            result = await apply_locked(target, options, source, operation, view, signals)
    except KeyboardInterrupt as stopped:
        view.cut_short(getattr(stopped, "exit_code", signals.exit_code))
        raise
    code = signals.exit_code if result.interrupted else EXIT_ERROR if result.failed else EXIT_OK
    view.finished(result, code)
    append_step_summary(lambda: render_apply_markdown(result))
    return code


async def apply_locked(
    target: Target,
    options: RunOptions,
    source: PlanOptions | PlanCheck,
    operation: Operation,
    view: ApplyView,
    signals: StopSignals,
) -> ApplyResult:
    """The run inside the state lock (released whatever happens)."""
    async with Workspace.open(target) as ws:
        write_warnings(ws.config.warnings)
        with ws.lock(operation, options.lock_timeout, options.lock_lease):
            doc = ws.read_state()
            if isinstance(source, PlanOptions):
                plan = await confirmed_plan(ws, doc, source, options, operation, view)
            else:
                plan = await source(ws, doc)
            return await execute(ws, doc, plan, options, view.reporter(plan), signals)


async def confirmed_plan(
    ws: Workspace,
    doc: StateDocument,
    options: PlanOptions,
    run: RunOptions,
    operation: Operation,
    view: ApplyView,
) -> Plan:
    """The plan of DOC, shown; its adopted creates recorded; confirmed if it changes.
    What is only for showing it is let go of (`planner.apply.executable`)."""
    redeploys = has_journalled_redeploys(doc)
    plan, _ = await ws.make_plan(options, doc)
    if redeploys or any(r.operation == IntentOp.CREATE for r in plan.recovered):
        ws.backend.write(doc)  # the creates adopted, the rollbacks settled (plan.redeploys)
    view.show_plan(plan)
    if plan.has_errors:
        # text shows them above; the JSON stream's error event must carry them itself
        listed = [f"{e.name}: {e.message}" for e in plan.errors] if run.format == "json" else []
        raise PlanError("the plan has errors (listed above): nothing was applied", details=listed)
    if plan.has_changes:
        confirm(run.auto_approve, operation, output_format=run.format)
    return executable(plan)


async def execute(
    ws: Workspace,
    doc: StateDocument,
    plan: Plan,
    options: RunOptions,
    reporter: Reporter,
    signals: StopSignals,
) -> ApplyResult:
    stop = asyncio.Event()
    apply_options = ApplyOptions(
        parallelism=options.parallelism, wait=not options.no_wait, wait_timeout=options.wait_timeout
    )
    with signals.executing(stop):
        return await ws.execute(plan, doc, apply_options, reporter, stop)
