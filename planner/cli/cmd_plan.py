"""`planner plan`: show, field by field, what apply would change (and optionally save it).

Every plan is read-only and takes no lock: it reads one consistent snapshot of the state
(a version with its operation log) and never waits for or fails on a lock; a writer that
holds the lock meanwhile is named in the plan (`lock`). The state is never written
(`--refresh-only` included: `planner apply --refresh-only` records the drift), except by
`--out` on a state that does not exist yet: the new, empty state is created if still
absent (of two plans creating it at once, one writes it and the other reads it back), so
the saved plan has a lineage to be tied to.
Exit codes: 0 (with `--detailed-exitcode`: no changes), 2 changes with
`--detailed-exitcode` (with `--refresh-only`: drift, every time until it is recorded),
1 error, including a plan that has errors (printed first).
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.cli.collector import long_lived_objects
from planner.cli.common import run_async
from planner.cli.exits import EXIT_CHANGES, EXIT_ERROR, EXIT_OK
from planner.cli.options import (
    OutputOptions,
    WorkspaceOptions,
    add_format_option,
    add_selection_options,
    add_workspace_options,
    seconds,
)
from planner.cli.step_summary import append_step_summary
from planner.errors import PlanError

# The engine, the models and the renderers are imported where they are used: parsing the
# command line (`planner plan --help` included) needs none of them.
if TYPE_CHECKING:
    from planner.cli.target import Target
    from planner.cli.workspace import Workspace
    from planner.plan.diff import PlanOptions
    from planner.plan.model import HeldLock, Plan
    from planner.plan.refresh import Observed
    from planner.plan.saved import SavedPlan
    from planner.state.document import StateDocument
    from planner.state.locking import LockInfo


@dataclass
class PlanRun:
    """What one `planner plan` produced: the plan and the file to save."""

    plan: Plan
    saved: SavedPlan | None = None


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "plan",
        parents=parents,
        help="show what apply would change",
        description="Compare the config with the state and the live control plane and "
        "show, field by field, what apply would change.",
    )
    add_workspace_options(parser)
    parser.add_argument("--out", metavar="PLANFILE", help="save the plan for `planner apply`")
    add_format_option(parser, ["text", "markdown", "json"])
    parser.add_argument(
        "--detailed-exitcode",
        action="store_true",
        help="exit 0 when there are no changes, 2 when there are, 1 on error",
    )
    add_selection_options(
        parser,
        "plan",
        refresh_only="only show what changed outside the planner (read-only: "
        "`planner apply --refresh-only` records it into the state)",
    )
    parser.add_argument("--destroy", action="store_true", help="plan to delete every managed one")
    parser.add_argument(
        "--lock-timeout",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="no effect: a plan takes no lock (accepted for scripts written when it did)",
    )
    parser.add_argument("--verbose", action="store_true", help="show unchanged fields too")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    workspace, output = WorkspaceOptions.of(vars(args)), OutputOptions.of(vars(args))
    options = plan_options(
        only=args.only,
        exclude=args.exclude,
        replace=args.replace,
        destroy=args.destroy,
        refresh_only=args.refresh_only,
        command_args=workspace.command_args(os.environ),
    )
    check_out(args.out, options)
    with long_lived_objects():  # the modules a plan needs, and the config file's data
        from planner.cli.target import resolve_target

        target = resolve_target(workspace, os.environ)
    check_out_target(args.out, target)
    result = run_async(run_plan(target, options, args.out))
    sys.stdout.write(render(result.plan, output))
    sys.stdout.flush()
    append_step_summary(lambda: step_summary(result.plan, output))
    report_side_effects(result, args.out, output)
    if result.plan.has_errors:
        return EXIT_ERROR
    if args.detailed_exitcode and is_changed(result.plan):
        return EXIT_CHANGES
    return EXIT_OK


def step_summary(plan: Plan, output: OutputOptions) -> str:
    """The plan's markdown for the CI step summary (rendered only when one is asked for)."""
    from planner.render.markdown import render_markdown

    return render_markdown(plan, verbose=output.verbose)


def is_changed(plan: Plan) -> bool:
    """What `--detailed-exitcode` reports as 2: apply would do something (a refresh-only
    plan: record drift). In-progress rollouts and unmanaged deployments are not changes."""
    if plan.mode == "refresh-only":
        return bool(plan.drift)
    return plan.has_changes


def plan_options(**given: Any) -> PlanOptions:
    """The plan's options, refused when `--refresh-only` is combined with a change."""
    from planner.plan.diff import PlanOptions

    if given["refresh_only"]:
        for flag, key in (("--destroy", "destroy"), ("--replace", "replace")):
            if given[key]:
                raise PlanError(f"--refresh-only cannot be combined with {flag}")
    return PlanOptions(**given)


def check_out(out: str | None, options: PlanOptions) -> None:
    """Refuse `--out` with options that save nothing, before anything is read."""
    if out is not None and options.refresh_only:
        raise PlanError(
            "--refresh-only cannot be combined with --out",
            hint="`planner apply --refresh-only` records the drift into the state",
        )


def check_out_target(out: str | None, target: Target) -> None:
    """Refuse an `--out` that is not a new file or a saved plan, before the plan is made;
    the hint names TARGET's own files (the config, the state and its siblings, the
    embedded control plane's database) as such."""
    if out is None:
        return
    from planner.plan.saved import plan_file_target
    from planner.state.localfile import LocalFileBackend
    from planner.state.location import is_postgres_url

    known = {Path(os.path.realpath(target.config_path)): "the config file"}
    if not is_postgres_url(target.state.location):
        known |= LocalFileBackend(target.state.location).files()
    if target.endpoint.db_path is not None:
        known[Path(os.path.realpath(target.endpoint.db_path))] = (
            "the local control plane's database"
        )
    plan_file_target(out, known)


async def run_plan(target: Target, options: PlanOptions, out: str | None) -> PlanRun:
    """The plan of one snapshot of the state, naming a writer that holds the lock."""
    from planner.cli.workspace import Workspace
    from planner.render.output import write_warnings

    # the config, the state, the live deployments and the plan all live as long as the
    # command: the cyclic collector's passes over them would find nothing to free
    with long_lived_objects():
        async with Workspace.open(target) as ws:
            write_warnings(ws.config.warnings)
            held = ws.backend.lock_info()
            doc = ws.read_state()
            plan, observed = await plan_held(ws, options, doc, held)
            if out and doc.serial == 0 and not plan.has_errors:  # no state yet: make one
                check_not_being_created(held)
                stored = ws.create_state(doc)
                if stored.lineage != doc.lineage:  # another plan created it first: use it
                    doc = stored
                    plan, observed = await plan_held(ws, options, doc, held)
            result = PlanRun(plan=plan)
            if out and not plan.has_errors:
                result.saved = saved_plan(ws, out, plan, doc, observed, options)
    return result


async def plan_held(
    ws: Workspace, options: PlanOptions, doc: StateDocument, held: LockInfo | None
) -> tuple[Plan, Observed]:
    """The plan of DOC, naming HELD, the writer holding the lock as it was read."""
    plan, observed = await ws.make_plan(options, doc, whole_workspace=True)
    return plan.model_copy(update={"lock": held_lock(held)}), observed


def check_not_being_created(held: LockInfo | None) -> None:
    """Refuse to create the state a writer holding the lock is about to create (its
    first write would then find another state in its place)."""
    if held is not None:
        raise PlanError(
            f"the state does not exist yet and {held.who} (pid {held.pid}) is creating it "
            f"({held.operation}, since {held.created}): a saved plan needs it to exist",
            hint="plan with --out again once that run has finished",
        )


def held_lock(info: LockInfo | None) -> HeldLock | None:
    """What the plan says of the writer holding the lock (None: the lock is free)."""
    from planner.plan.model import HeldLock

    if info is None:
        return None
    holder = f"{info.who} (pid {info.pid})"
    return HeldLock(holder=holder, operation=info.operation, since=info.created, id=info.id)


def saved_plan(
    ws: Workspace,
    out: str,
    plan: Plan,
    doc: StateDocument,
    observed: Observed,
    options: PlanOptions,
) -> SavedPlan:
    """The plan to save at OUT, sealed with the state's plan key (made now if there is none)."""
    from planner.plan.saved import make_saved_plan, seal_saved_plan
    from planner.plan.stale import variable_digests

    saved = make_saved_plan(
        plan,
        doc,
        observed,
        config_path=ws.config.path,
        plan_path=out,
        state_path=ws.backend.address,
        state_dir=ws.state_dir,
        options=options,
        desired=ws.config.deployments,
        variables=variable_digests(ws.config.given_variables, ws.digest_key(doc)),
    )
    return seal_saved_plan(saved, ws.plan_key())


def render(plan: Plan, output: OutputOptions) -> str:
    if output.format == "json":
        from planner.render.json import render_json

        return render_json(plan)
    if output.format == "markdown":
        from planner.render.markdown import render_markdown

        return render_markdown(plan, verbose=output.verbose)
    from planner.render.text import render_text

    return render_text(plan, color=is_color_terminal(), verbose=output.verbose)


def is_color_terminal() -> bool:
    """Colour (and bold) only on a terminal, and never with NO_COLOR set."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def report_side_effects(result: PlanRun, out: str | None, output: OutputOptions) -> None:
    """The saved plan file, said apart from the plan itself."""
    if not out:
        return
    from planner.command_lines import suggested_command
    from planner.plan.saved import write_saved_plan
    from planner.render.console import make_console

    if result.saved is None:
        make_console(stderr=True).print(f"The plan has errors: not saved to {out}.", markup=False)
        return
    write_saved_plan(out, result.saved)
    make_console(stderr=output.format != "text").print(
        f"\nSaved the plan to {out}. To apply exactly this plan: "
        + suggested_command("apply", out),
        markup=False,
    )
