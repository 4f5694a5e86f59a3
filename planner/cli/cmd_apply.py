"""`planner apply [PLANFILE]`: converge the control plane to the config.

Without PLANFILE: lock the state, adopt what an interrupted apply created, plan, show
the plan, ask for `yes` on a terminal (or `--auto-approve`), execute. With PLANFILE:
execute exactly that saved plan, without asking, unless it is stale. The state lock is
held for the whole run. Exit codes: 0 done, 1 an error or a deployment failed, 130
interrupted (Ctrl-C), 143 terminated (SIGTERM): after a first signal, requests in flight
finish and are recorded first (`planner.cli.signals`). `--format json` streams NDJSON
events on stdout instead of the text (`planner.render.apply_view`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

from planner.apply import ApplyOptions, ApplyResult, execute_plan
from planner.apply.context import DEFAULT_PARALLELISM
from planner.apply.events import Operation
from planner.apply.reporter import Reporter
from planner.cli.common import (
    DEFAULT_CONFIG,
    EXIT_ERROR,
    EXIT_OK,
    add_lock_timeout_option,
    add_workspace_options,
    environment_from,
    opened_state,
    repeated_args,
    seconds,
    variables_from,
)
from planner.cli.refresh_only import run_refresh_only
from planner.cli.signals import StopSignals, raise_terminated
from planner.cli.step_summary import append_step_summary
from planner.cli.workspace import Workspace
from planner.errors import PlanError, PlannerError
from planner.plan.diff import PlanOptions
from planner.plan.model import Plan
from planner.plan.refresh import observed_record, pending_create_names, revision_fields
from planner.plan.saved import SavedPlan, check_seal, read_saved_plan
from planner.plan.stale import check_plan_fresh
from planner.render.apply_markdown import render_apply_markdown
from planner.render.apply_view import ApplyView, make_view
from planner.render.console import make_console
from planner.render.output import write_warnings
from planner.secrets import url_without_password
from planner.state.document import IntentOp, StateDocument
from planner.state.location import STATE_ENV
from planner.state.records import RecordedDeployment


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "apply",
        parents=parents,
        help="apply the changes of a plan",
        description="Plan, confirm and apply; or apply a plan saved with `planner plan --out`.",
    )
    parser.add_argument("planfile", nargs="?", metavar="PLANFILE", help="a saved plan to apply")
    add_run_options(parser)
    for flag, text in (
        ("--only", "apply only NAME (repeatable)"),
        ("--exclude", "leave NAME out (repeatable)"),
        ("--replace", "delete and re-create NAME (repeatable)"),
    ):
        parser.add_argument(flag, action="append", default=[], metavar="NAME", help=text)
    parser.add_argument(
        "--refresh-only",
        action="store_true",
        help="record what changed outside the planner into the state; change nothing remotely",
    )
    parser.set_defaults(func=run)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options `apply` and `destroy` share."""
    add_workspace_options(parser)
    parser.add_argument(
        "--auto-approve", action="store_true", help="apply without asking for confirmation"
    )
    parser.add_argument(
        "--parallelism",
        type=positive_int,
        default=DEFAULT_PARALLELISM,
        metavar="N",
        help=f"creates and PATCHes in flight at once (default: {DEFAULT_PARALLELISM}); "
        "revision polls have their own budget",
    )
    parser.add_argument(
        "--no-wait", action="store_true", help="return once submitted; do not wait for revisions"
    )
    parser.add_argument(
        "--wait-timeout",
        type=seconds,
        default=1800.0,
        metavar="SECONDS",
        help="how long to wait for each revision (default: 1800)",
    )
    add_lock_timeout_option(parser)
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text, or json: NDJSON events on stdout, one per line, the last a summary "
        "(schemas/apply-events.schema.json)",
    )
    parser.set_defaults(json_lines=True)  # a --format json error is an event line too


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    if args.planfile and (args.only or args.exclude or args.replace):
        raise PlanError("--only, --exclude and --replace cannot be used with a saved plan")
    options = PlanOptions(
        only=args.only,
        exclude=args.exclude,
        replace=args.replace,
        refresh_only=args.refresh_only,
        command_args=repeated_args(args),
    )
    if args.refresh_only:
        view = make_view(args.format, "apply")

        def confirm_in_format(auto_approve: bool, operation: str) -> None:
            confirm(auto_approve, operation, output_format=args.format)

        refresh = run_refresh_only(args, options, show=view.show_plan, confirm=confirm_in_format)
        return asyncio.run(refresh)
    return asyncio.run(run_apply(args, options, operation="apply"))


async def run_apply(args: argparse.Namespace, options: PlanOptions, *, operation: Operation) -> int:
    """Lock, plan (or load the saved plan), confirm, execute, report; the exit code."""
    view = make_view(args.format, operation)
    signals = StopSignals(view.stopping)
    try:
        with signals.installed():
            result = await apply_locked(args, options, operation, view, signals)
    except KeyboardInterrupt as stopped:
        view.cut_short(getattr(stopped, "exit_code", signals.exit_code))
        raise
    code = signals.exit_code if result.interrupted else EXIT_ERROR if result.failed else EXIT_OK
    view.finished(result, code)
    append_step_summary(render_apply_markdown(result))
    return code


async def apply_locked(
    args: argparse.Namespace,
    options: PlanOptions,
    operation: Operation,
    view: ApplyView,
    signals: StopSignals,
) -> ApplyResult:
    """The run inside the state lock (released whatever happens)."""
    saved = load_sealed_plan(args) if getattr(args, "planfile", None) else None
    async with Workspace.from_args(args) as ws:
        write_warnings(ws.config.warnings)
        with ws.lock(operation, timeout=args.lock_timeout):
            doc = ws.read_state()
            if saved is not None:
                observed = await ws.refresh(doc, set(ws.config.deployments) - set(doc.deployments))
                check_plan_fresh(saved, doc, observed, ws.config.deployments, ws.digest_key(doc))
                await adopt_pending(ws, doc)
                plan = saved.plan
            else:
                await adopt_pending(ws, doc)
                plan, _ = await ws.make_plan(options, doc)
                view.show_plan(plan)
                if plan.has_errors:
                    raise PlanError("the plan has errors (listed above): nothing was applied")
                if plan.has_changes:
                    confirm(args.auto_approve, operation, output_format=args.format)
            return await execute(ws, doc, plan, args, view.reporter(plan), signals)


def load_sealed_plan(args: argparse.Namespace) -> SavedPlan:
    """The saved plan, its seal checked with the key beside its state before anything
    else is opened, read or sent; ARGS then point at the plan's config and state."""
    saved = read_saved_plan(args.planfile)
    use_saved_paths(args, saved)
    with opened_state(args) as backend:
        key = backend.plan_key(create=False)
    check_seal(saved, key, Path(args.planfile).absolute())
    return saved


def use_saved_paths(args: argparse.Namespace, saved: SavedPlan) -> None:
    """A saved plan applies to the config, state and embedded plane it was made with,
    whatever the working directory; `-c` and `--state` may still name them (the seal,
    the state's lineage and the config digests then check they are the same)."""
    if args.config == DEFAULT_CONFIG:
        args.config = saved.config_path
    if args.state is None and not _given_in_environment(saved.state_path):
        args.state = saved.state_path
    args.state_dir = saved.state_dir
    chosen = environment_from(args, os.environ)
    if chosen is not None and chosen != saved.plan.environment:
        made_for = saved.plan.environment or "a config without environments"
        raise PlanError(
            f"the plan was made for environment {made_for}, not {chosen}",
            hint="apply it without --env (and PLANNER_ENV), or make a plan for this environment",
        )
    args.env = saved.plan.environment
    use_saved_variables(args, saved)


def use_saved_variables(args: argparse.Namespace, saved: SavedPlan) -> None:
    """The config is loaded with the variables the plan was made with (`--var`,
    PLANNER_VAR_NAME then); a `--var` given now must agree, or the plan is not the one
    reviewed."""
    given = variables_from(args)
    for name, value in given.items():
        if saved.variables.get(name) != value:
            planned = saved.variables.get(name)
            was = f"{name}={planned}" if planned is not None else f"no --var {name}"
            raise PlanError(
                f"--var {name}={value} differs from the saved plan's variables ({was})",
                hint="apply the plan without --var, or make a new plan with these values",
            )
    args.var = sorted(saved.variables.items())


def _given_in_environment(address: str) -> bool:
    """Whether $PLANNER_STATE is the plan's state URL, with the password it carries."""
    given = os.environ.get(STATE_ENV)
    return bool(given) and url_without_password(given or "") == address


async def adopt_pending(ws: Workspace, doc: StateDocument) -> None:
    """Record what an apply that stopped mid-way created (journalled, never recorded),
    so it is neither created twice nor forgotten; then clear the journal."""
    intents = [i for i in doc.pending if i.op == IntentOp.CREATE]
    if not intents:
        return
    found = (await ws.refresh(doc, [])).pending_found if pending_create_names(doc) else {}
    key = ws.digest_key(doc)
    for name, deployment in sorted(found.items()):
        wanted = ws.config.deployments.get(name)
        if wanted is not None:
            doc.record(observed_record(wanted, deployment, key))
        else:  # left the config since: record it so the plan deletes it
            doc.record(
                RecordedDeployment(name=name, id=deployment.id, **revision_fields(deployment))
            )
        make_console(stderr=True).print(
            f"Adopted {name} ({deployment.id}): created by an apply that stopped before "
            "recording it.",
            markup=False,
        )
    for intent in intents:
        doc.clear_intent(intent)
    ws.backend.write(doc)


def confirm(auto_approve: bool, operation: str, *, output_format: str = "text") -> None:
    """Ask for `yes` on a terminal; refuse to go on without one unless --auto-approve
    (with `--format json` stdout is for events only: no question is asked there)."""
    if auto_approve:
        return
    if output_format == "json":
        raise PlannerError(
            "cannot ask for confirmation with --format json",
            hint=f"pass --auto-approve to {operation} without asking, or apply a saved plan",
        )
    if not sys.stdin.isatty():
        raise PlannerError(
            "cannot ask for confirmation: the input is not a terminal",
            hint=f"pass --auto-approve to {operation} without asking",
        )
    question = (
        "Do you really want to destroy every deployment in the state?"
        if operation == "destroy"
        else "Do you want to apply these changes?"
    )
    print(f"\n{question}\n  Only 'yes' will be accepted.\n")
    answer = ask("  Enter a value: ")
    if answer != "yes":
        raise PlannerError(f"{operation.capitalize()} cancelled.")


def ask(prompt: str) -> str | None:
    """The answer typed, or None at end of input (Ctrl-D).

    Ctrl-C and SIGTERM must stop at once: the loop's handlers only cancel the task,
    which a blocking input() never notices, so plain handlers raise while waiting."""
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        previous_term = signal.signal(signal.SIGTERM, raise_terminated)
    except ValueError:  # not the main thread: nothing to restore
        previous = previous_term = None
    try:
        return input(prompt).strip()
    except EOFError:
        return None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            signal.signal(signal.SIGTERM, previous_term)


async def execute(
    ws: Workspace,
    doc: StateDocument,
    plan: Plan,
    args: argparse.Namespace,
    reporter: Reporter,
    signals: StopSignals,
) -> ApplyResult:
    stop = asyncio.Event()
    options = ApplyOptions(
        parallelism=args.parallelism, wait=not args.no_wait, wait_timeout=args.wait_timeout
    )
    with signals.executing(stop):
        return await execute_plan(
            plan,
            client=ws.client,
            backend=ws.backend,
            doc=doc,
            desired=ws.config.deployments,
            digest_key=ws.digest_key(doc),
            options=options,
            reporter=reporter,
            stop=stop,
        )
