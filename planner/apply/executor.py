"""`execute_plan`: carry out a Plan against the control plane, recording as it goes.

Order: first what needs no request (no-op records, forgetting deployments deleted
outside), then ONE bulk delete for every `delete` and `replace` (chunks of 100), then
every create, PATCH and re-create concurrently (`parallelism` requests at once), each
waiting for its revision through the one batched poller (`planner.apply.poller`, with a
request budget of its own; the client's pool holds both), and beside them, sending
nothing, the waits for the revisions an earlier apply submitted that are still rolling
out (`plan.rollouts` of deployments the plan leaves alone; not with `--no-wait`).
Crash safety comes from `StateRecorder`: a create, a PATCH and a delete are journalled
before they are sent and recorded as soon as they are answered, so a `kill -9` at any
moment leaves either the record or the journal entry: the next run adopts a create by
name, and reports what the entries explain as recovered, not drift.

Stopping (Ctrl-C sets `stop`): nothing new is sent, waits end at once, requests in
flight get `interrupt_grace` seconds to finish (and be recorded) before they are
cancelled; the state is written and the result says `interrupted`. A cancellation of the
caller's task does the same, faster (no grace), then propagates.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from typing import Any

from planner.api.client import ControlPlaneClient
from planner.api.gate import BackoffGate
from planner.apply.context import ApplyOptions, Run, describe_error, working_on
from planner.apply.deposed import after_successors, split_deposed
from planner.apply.operations import apply_change, rollouts_to_wait, wait_for_rollout
from planner.apply.record_updates import rerecorded
from planner.apply.recorder import StateRecorder
from planner.apply.reporter import NullReporter, Reporter
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.config.desired import DesiredDeployment
from planner.errors import PlanError, PlanStaleError
from planner.plan.model import Action, Change, Plan
from planner.plan.stale import refuse_stale, secret_moves
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, PendingIntent, StateDocument
from planner.state.moves import move_recorded

_NEEDS_CONFIG = (Action.CREATE, Action.UPDATE, Action.NEW_REVISION, Action.REPLACE)
_DELETES = (Action.DELETE, Action.REPLACE)


async def execute_plan(
    plan: Plan,
    *,
    client: ControlPlaneClient,
    backend: StateBackend,
    doc: StateDocument,
    desired: Mapping[str, DesiredDeployment],
    digest_key: bytes,
    options: ApplyOptions | None = None,
    reporter: Reporter | None = None,
    stop: asyncio.Event | None = None,
) -> ApplyResult:
    """Apply PLAN; the state (DOC, in BACKEND, locked by the caller) is written after
    every completed operation. Never raises for a failed deployment: see the result."""
    check_applicable(plan, desired, digest_key)
    if client.gate is None:
        client.gate = BackoffGate()
    reporter = reporter or NullReporter()
    run = Run(
        client=client,
        recorder=StateRecorder(backend, doc),
        desired=desired,
        digest_key=digest_key,
        options=options or ApplyOptions(),
        reporter=reporter,
        stop=stop or asyncio.Event(),
        results={c.name: result_of(c) for c in plan.changes},
    )
    rollouts = rollouts_to_wait(plan, run.options.wait)
    for rollout in rollouts:
        run.results[rollout.name].rollout = True
    result = ApplyResult(
        results=list(run.results.values()), mode=plan.mode, recovered=list(plan.recovered)
    )
    await client.fit_pool(run.options.parallelism + run.poller.requests)
    started = run.options.clock()
    run.reporter.begin(result.results)
    try:
        run.poller.start()  # here: its retries are no one deployment's
        with observed(client, client.gate, reporter):
            result.moved = await record_moves(run, plan)
            await record_no_ops(run, plan)
            deletes = [c for c in plan.changes_with(*_DELETES) if not c.create_before_destroy]
            deletes, later = split_deposed(deletes, plan, rollouts)
            intents = await delete_all(run, deletes)
            work = plan.changes_with(*_NEEDS_CONFIG)
            operations = [apply_change(run, c, intents.get(c.name)) for c in work]
            operations += [wait_for_rollout(run, rollout) for rollout in rollouts]
            await run_all(run, operations)
            await delete_all(run, after_successors(run, later))
    finally:
        await run.poller.aclose()
        result.interrupted = run.stop.is_set()
        await run.recorder.flush()  # whatever a cancelled operation changed last
        result.seconds = run.options.clock() - started
        run.reporter.end(result)
    return result


def result_of(change: Change) -> DeploymentResult:
    """The result of CHANGE before anything was done."""
    return DeploymentResult(
        change.name, change.action, change.deployment_id, moved_from=change.moved_from
    )


@contextlib.contextmanager
def observed(client: ControlPlaneClient, gate: BackoffGate, reporter: Reporter) -> Iterator[None]:
    """The client's retries and the gate's pauses go to REPORTER, naming the deployment
    whose task sent the request, for the time of the run (then they are unhooked)."""
    client.on_retry = lambda notice: reporter.retry(notice, working_on.get())
    gate.on_pause = lambda seconds: reporter.pause(seconds, working_on.get())
    try:
        yield
    finally:
        client.on_retry = None
        gate.on_pause = None


def check_applicable(
    plan: Plan, desired: Mapping[str, DesiredDeployment], digest_key: bytes
) -> None:
    """Refuse, before anything is sent, a plan with errors or one the config moved under."""
    if plan.has_errors:
        raise PlanError(
            "the plan has errors and cannot be applied",
            details=[f"{e.name}: {e.message}" for e in plan.errors],
        )
    if plan.mode == "refresh-only":
        raise PlanError("a refresh-only plan changes nothing: there is nothing to apply")
    for change in plan.changes_with(*_NEEDS_CONFIG):
        if change.name not in desired:
            raise PlanStaleError(
                f"the plan is stale: {change.name} is no longer in the config",
                hint="run `planner plan` again",
            )
    # the digests apply records must be of the values planned (sent, or seen on the server)
    refuse_stale(secret_moves(plan, desired, digest_key))


async def record_no_ops(run: Run, plan: Plan) -> None:
    """No request: forget what was deleted outside; re-record what the plan leaves alone
    (its recorded values may lag the config: released fields, accepted drift)."""
    doc = run.recorder.doc
    changed = False
    for change in plan.changes_with(Action.NO_OP):
        recorded = doc.deployments.get(change.name)
        wanted = run.desired.get(change.name)
        outcome_status = "moved" if change.moved_from else "no changes"
        if recorded is None:
            pass
        elif wanted is None or plan.mode == "destroy" or change.gone:
            doc.forget(change.name)
            outcome_status, changed = "forgotten", True
        else:
            fresh = rerecorded(wanted, recorded, change.secret_digests)
            if fresh != recorded:
                doc.record(fresh)
                changed = True
        # what an interrupted apply journalled for it, the plan has accounted for
        changed |= doc.clear_intents(change.name, IntentOp.UPDATE, IntentOp.DELETE)
        if not run.results[change.name].rollout:  # a rollout's wait finishes it
            run.finish(run.results[change.name], Outcome.SUCCEEDED, outcome_status)
    if changed:
        await run.recorder.commit()


async def record_moves(run: Run, plan: Plan) -> int:
    """Re-key the record of every moved deployment (nothing is sent for a move), in one
    write before anything else, so each change then finds its record where it plans it."""
    doc = run.recorder.doc
    moved = [c for c in plan.changes if c.moved_from in doc.deployments]
    for change in moved:
        assert change.moved_from is not None
        move_recorded(doc, change.moved_from, change.name)
    if moved:
        await run.recorder.commit()
    return len(moved)


async def delete_all(run: Run, changes: list[Change]) -> dict[str, PendingIntent]:
    """One bulk delete for every delete and replace; record exactly the ids gone.

    Returns the journal entries of the replaces whose old deployment is gone (their
    re-creation is journalled in the same write that forgets the old one)."""
    if not changes:
        return {}
    if run.stop.is_set():
        for change in changes:
            run.finish(run.results[change.name], Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
        return {}
    await run.recorder.journal_deletes({c.name: c.deployment_id for c in changes})
    for change in changes:
        run.begin(run.results[change.name], "deleting")
    ids = [c.deployment_id for c in changes if c.deployment_id]
    try:
        outcome = await run.request(lambda: run.client.delete_deployments(ids))
    except Exception as error:
        for change in changes:
            run.fail(run.results[change.name], error)
        return {}
    gone = [c for c in changes if c.deployment_id in outcome.deleted]
    for change in changes:  # the server said which are gone: the journal is answered
        run.recorder.doc.clear_intents(change.name, IntentOp.DELETE)
    intents = await forget_deleted(run, gone)
    for change in changes:
        result = run.results[change.name]
        if change.deployment_id in outcome.deleted:
            if change.action is Action.DELETE:
                run.finish(result, Outcome.SUCCEEDED, "deleted")
            result.old_deleted = change.action is Action.REPLACE
            continue
        why = outcome.failed.get(change.deployment_id or "", "not deleted")
        run.fail(result, f"delete failed: {why}")
    return intents


async def forget_deleted(run: Run, gone: list[Change]) -> dict[str, PendingIntent]:
    doc = run.recorder.doc
    intents: dict[str, PendingIntent] = {}
    for change in gone:
        if change.name in doc.deployments:
            doc.forget(change.name)
        if change.action is Action.REPLACE:
            intents[change.name] = doc.add_intent(IntentOp.CREATE, change.name)
    if gone:
        await run.recorder.commit()
    return intents


async def run_all(run: Run, operations: list[Coroutine[Any, Any, None]]) -> None:
    """Run the operations concurrently until all are done, or until a stop: then give
    the ones in flight `interrupt_grace` seconds and cancel what is left.

    One future for all of them (each operation records its own failure), so the cost is
    linear in their number: waiting on the pending set after each completion was
    quadratic (a quarter of the CPU at 10,000 operations)."""
    tasks = [asyncio.ensure_future(op) for op in operations]
    if not tasks:
        return
    stopped: asyncio.Future[Any] = asyncio.ensure_future(run.stop.wait())
    everything: asyncio.Future[Any] = asyncio.gather(*tasks, return_exceptions=True)
    try:
        await asyncio.wait({everything, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if run.stop.is_set() and not everything.done():
            await asyncio.wait({everything}, timeout=run.options.interrupt_grace)
    except asyncio.CancelledError:
        run.stop.set()
        raise
    finally:
        stopped.cancel()
        await cancel_leftovers(run, tasks)


async def cancel_leftovers(run: Run, tasks: Sequence[asyncio.Future[None]]) -> None:
    """Cancel what is still running; a request cut off may or may not have happened,
    which is what the journal is for (the next run checks)."""
    left = [t for t in tasks if not t.done()]
    for task in left:
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.gather(*left, return_exceptions=True)
    for result in run.results.values():
        cut_off = (
            result.outcome is Outcome.NOT_STARTED and result.status != Outcome.NOT_STARTED.value
        )
        if result.started is not None and cut_off:
            run.fail(result, describe_error("interrupted while its request was in flight"))
