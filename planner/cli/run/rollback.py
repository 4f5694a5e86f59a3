"""`planner rollback NAME [--to REVISION_ID]`: redeploy an earlier revision and hold it.

Lock the state; settle what an interrupted rollback journalled (`planner.plan.redeploys`,
written at once); then either finish the rollback NAME is already held by
(`finishes_earlier_rollback`: nothing sent, its revision waited for) or plan the rollback
(`planner.plan.rollback`), show it, ask for `yes` on a terminal (or `--auto-approve`),
and execute it (`planner.apply.rollback`: journal, redeploy, hold, wait). The config is
never edited. Signals as apply: a first SIGINT/SIGTERM stops the wait (the hold is
recorded), a second one at once. Exit codes: 0 done (or submitted with `--no-wait`),
1 an error or the revision failed, 130/143 interrupted. A rollback sends no secret: the
config is loaded without the secrets' environment variables (`NotingMissing`, as
`planner validate` loads it), so one that is not set is no error.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from functools import partial

from planner.apply.context import ApplyOptions
from planner.apply.rollback import Executing, RollbackOutcome, execute_rollback, finish_rollback
from planner.cli.commands.rollback import RollbackArgs
from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.prompt import confirm
from planner.cli.signals import StopSignals
from planner.cli.target import resolve_target
from planner.cli.workspace import Workspace
from planner.config.secret_values import NotingMissing
from planner.plan.model import Recovered
from planner.plan.redeploys import has_journalled_redeploys, settle_interrupted_redeploys
from planner.plan.rollback import finishes_earlier_rollback, plan_rollback
from planner.render.output import write_warnings
from planner.render.rollback_view import RollbackView, finishing_title, rolling_back_title
from planner.state.document import StateDocument


def run(args: RollbackArgs) -> int:
    view = RollbackView(args.options.format, args.workspace.command_args(os.environ))
    return asyncio.run(run_rollback(args, view))


async def run_rollback(args: RollbackArgs, view: RollbackView) -> int:
    """Roll back under the signals' handling; report; the exit code."""
    signals = StopSignals(view.stopping)
    with signals.installed():
        outcome = await rollback_locked(args, view, signals)
    done = outcome.deployment
    failed = done.failed
    code = signals.exit_code if outcome.result.interrupted else EXIT_ERROR if failed else EXIT_OK
    view.finished(outcome, code)
    return code


async def rollback_locked(
    args: RollbackArgs, view: RollbackView, signals: StopSignals
) -> RollbackOutcome:
    """The run inside the state lock (released whatever happens)."""
    target = resolve_target(args.workspace, os.environ)
    options = args.options
    async with Workspace.open(target, environ=NotingMissing(os.environ)) as ws:
        write_warnings(ws.config.warnings)
        with ws.lock("rollback", options.lock_timeout, options.lock_lease) as lock:
            doc, recovered = await settled_state(ws)
            recorded = doc.get(args.name)  # a StateError listing the managed names
            execute: Callable[[Executing], Awaitable[RollbackOutcome]]
            if finishes_earlier_rollback(recorded, args.to):
                execute = partial(finish_rollback, recorded)
                title = finishing_title(recorded)
            else:
                plan = await plan_rollback(ws.client, recorded, args.to)
                view.show_plan(plan)
                confirm(options.auto_approve, "rollback", output_format=options.format)
                execute = partial(execute_rollback, plan, lock.info.who)
                title = rolling_back_title(plan)
            stop = asyncio.Event()
            executing = Executing(
                ws.client, ws.backend, doc, apply_options(args), view.reporter(title), stop
            )
            with signals.executing(stop):
                outcome = await execute(executing)
    outcome.recovered = recovered
    return outcome


async def settled_state(ws: Workspace) -> tuple[StateDocument, list[Recovered]]:
    """The state, with what interrupted rollbacks journalled settled and written."""
    doc = ws.read_state()
    journalled = has_journalled_redeploys(doc)
    recovered = await settle_interrupted_redeploys(ws.client, doc)
    if journalled:
        ws.backend.write(doc)
    return doc, recovered


def apply_options(args: RollbackArgs) -> ApplyOptions:
    """How the rollback's revision is waited for: apply's waiting, one request at a time."""
    options = args.options
    return ApplyOptions(parallelism=1, wait=not options.no_wait, wait_timeout=options.wait_timeout)
