"""`planner apply [PLANFILE]`: converge the control plane to the config.

Without PLANFILE: lock the state, plan (adopting what an interrupted apply created, which
the plan lists as recovered), show the plan, ask for `yes` on a terminal (or
`--auto-approve`), execute. With PLANFILE: execute exactly that saved plan, without
asking, unless it is stale. The state lock is held for the whole run. Exit codes: 0 done,
1 an error or a deployment failed, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM):
after a first signal, requests in flight finish and are recorded first
(`planner.cli.signals`). `--format json` streams NDJSON events on stdout instead of the
text (`planner.render.apply_view`).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from planner.cli.collector import long_lived_objects
from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.options import (
    RunOptions,
    WorkspaceOptions,
    add_run_options,
    add_selection_options,
)
from planner.errors import PlanError

# The engine, the models and the views are imported where they are used: parsing the
# command line (`planner apply --help` included) needs none of them.
if TYPE_CHECKING:
    from planner.apply import ApplyResult
    from planner.apply.events import Operation
    from planner.apply.reporter import Reporter
    from planner.cli.signals import StopSignals
    from planner.cli.target import Target
    from planner.cli.workspace import Workspace
    from planner.plan.diff import PlanOptions
    from planner.plan.model import Plan
    from planner.plan.saved import SavedPlan
    from planner.render.apply_view import ApplyView
    from planner.state.document import StateDocument


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "apply",
        parents=parents,
        help="apply the changes of a plan",
        description="Plan, confirm and apply; or apply a plan saved with `planner plan --out`.",
    )
    parser.add_argument("planfile", nargs="?", metavar="PLANFILE", help="a saved plan to apply")
    add_run_options(parser)
    add_selection_options(
        parser,
        "apply",
        refresh_only="record what changed outside the planner into the state; "
        "change nothing remotely",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with long_lived_objects():  # the modules an apply needs, imported as it starts
        import asyncio

        from planner.cli.refresh_only import run_refresh_only
        from planner.cli.target import resolve_target
        from planner.plan.diff import PlanOptions
        from planner.render.apply_view import make_view

    if args.planfile and (args.only or args.exclude or args.replace):
        raise PlanError("--only, --exclude and --replace cannot be used with a saved plan")
    if args.refresh_only and (args.planfile or args.replace):
        raise PlanError("--refresh-only cannot be combined with a saved plan or --replace")
    workspace, options = WorkspaceOptions.of(vars(args)), RunOptions.of(vars(args))
    if args.planfile:
        from planner.cli.saved_target import load_sealed_plan  # the saved plan's only

        sealed = load_sealed_plan(args.planfile, workspace, os.environ)
        return asyncio.run(run_apply(sealed.target, options, sealed.saved, operation="apply"))
    plan_options = PlanOptions(
        only=args.only,
        exclude=args.exclude,
        replace=args.replace,
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
    target: Target, options: RunOptions, source: PlanOptions | SavedPlan, *, operation: Operation
) -> int:
    """Lock, plan (or check the saved plan), confirm, execute, report; the exit code."""
    from planner.cli.signals import StopSignals
    from planner.cli.step_summary import append_step_summary
    from planner.render.apply_view import make_view

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
    append_step_summary(lambda: apply_markdown(result))
    return code


def apply_markdown(result: ApplyResult) -> str:
    """The step summary of RESULT (its renderer is imported only when one is wanted)."""
    from planner.render.apply_markdown import render_apply_markdown

    return render_apply_markdown(result)


async def apply_locked(
    target: Target,
    options: RunOptions,
    source: PlanOptions | SavedPlan,
    operation: Operation,
    view: ApplyView,
    signals: StopSignals,
) -> ApplyResult:
    """The run inside the state lock (released whatever happens)."""
    from planner.cli.workspace import Workspace
    from planner.plan.diff import PlanOptions  # not SavedPlan: planning needs none
    from planner.render.output import write_warnings

    async with Workspace.open(target) as ws:
        write_warnings(ws.config.warnings)
        with ws.lock(operation, options.lock_timeout, options.lock_lease):
            doc = ws.read_state()
            if isinstance(source, PlanOptions):
                plan = await confirmed_plan(ws, doc, source, options, operation, view)
            else:
                plan = await checked_saved_plan(ws, doc, source)
            return await execute(ws, doc, plan, options, view.reporter(plan), signals)


async def checked_saved_plan(ws: Workspace, doc: StateDocument, saved: SavedPlan) -> Plan:
    """SAVED's plan, refused when stale; what an interrupted apply created is adopted
    (the plan lists it as recovered already: it was made on the same state)."""
    from planner.plan.recovery import adopt_interrupted_creates
    from planner.plan.stale import check_plan_fresh

    observed = await ws.refresh(doc, set(ws.config.deployments) - set(doc.deployments))
    key = ws.digest_key(doc)
    given = ws.config.given_variables
    check_plan_fresh(saved, doc, observed, ws.config.deployments, key, variables=given)
    ws.recheck_policies(saved.plan, doc, observed)
    if adopt_interrupted_creates(doc, observed.pending_found, ws.config.deployments, key):
        ws.backend.write(doc)
    return saved.plan


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
    from planner.apply.executable import executable
    from planner.cli.prompt import confirm
    from planner.state.document import IntentOp

    plan, _ = await ws.make_plan(options, doc)
    if any(r.operation == IntentOp.CREATE for r in plan.recovered):
        ws.backend.write(doc)  # the creates adopted from an interrupted apply
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
    import asyncio

    from planner.apply import ApplyOptions

    stop = asyncio.Event()
    apply_options = ApplyOptions(
        parallelism=options.parallelism, wait=not options.no_wait, wait_timeout=options.wait_timeout
    )
    with signals.executing(stop):
        return await ws.execute(plan, doc, apply_options, reporter, stop)
