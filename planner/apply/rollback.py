"""Carrying out a rollback (`planner.plan.rollback.RollbackPlan`): journal, redeploy, hold,
wait.

As apply does for a PATCH: the redeploy is journalled (intent `redeploy`,
`planner.plan.redeploys`) in a durable write BEFORE it is sent; the server's answer is
recorded at once, with the hold, in the write that clears the intent (apply's
`StateRecorder`: through the operation log); then its new revision is waited for by
apply's poller (`--no-wait`, `--wait-timeout`, progress, the stop of a first signal),
and once DEPLOYED the record names it active. A kill -9 at any point leaves either the
journalled intent (settled by the next run, `planner.plan.redeploys`) or the hold with
the ids the server answered: never a hold the server does not match, never a redeploy
the state forgot.

`finish_rollback` is a rollback run again on a deployment already held at the revision
it names (`planner.plan.rollback.finishes_earlier_rollback`): nothing is sent; it waits
for the redeploy's revision when that is still rolling out (a run killed, stopped or
`--no-wait` while it was).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from planner.api.client import ControlPlaneClient
from planner.api.gate import BackoffGate
from planner.apply.context import ApplyOptions, Run, working_on
from planner.apply.executor import observed, run_all
from planner.apply.operations import follow, sent_journalled
from planner.apply.recorder import StateRecorder
from planner.apply.reporter import NullReporter, Reporter
from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action, Recovered
from planner.plan.record_builders import rolled_back_record
from planner.plan.redeploys import hold_of, redeploy_details
from planner.plan.rollback import RollbackPlan
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, StateDocument
from planner.state.records import Hold, RecordedDeployment

Operation = Callable[[Run], Coroutine[Any, Any, None]]


@dataclass
class RollbackOutcome:
    """What a rollback did (data: `planner.render.rollback_view` words it). `plan` is None
    when the run finished an earlier rollback (nothing sent); `hold` is the deployment's
    hold after the run; `recovered`: interrupted rollbacks this run recorded."""

    name: str
    result: ApplyResult
    plan: RollbackPlan | None = None
    hold: Hold | None = None
    recovered: list[Recovered] = field(default_factory=list)

    @property
    def deployment(self) -> DeploymentResult:
        return self.result.results[0]


@dataclass(frozen=True)
class Executing:
    """What a rollback's execution works with: the client, the state (DOC in BACKEND,
    locked by the caller), how to wait, where progress goes and the stop signal."""

    client: ControlPlaneClient
    backend: StateBackend
    doc: StateDocument
    options: ApplyOptions = field(default_factory=ApplyOptions)
    reporter: Reporter = field(default_factory=NullReporter)
    stop: asyncio.Event = field(default_factory=asyncio.Event)


async def execute_rollback(plan: RollbackPlan, by: str, executing: Executing) -> RollbackOutcome:
    """Redeploy PLAN's target for BY (the lock's `who`), hold, wait (see the module)."""

    async def operation(run: Run) -> None:
        await _guarded(run, plan.name, lambda result: redeploy(run, plan, by, result))

    result = await carry_out(executing, plan.name, plan.deployment_id, operation)
    return RollbackOutcome(plan.name, result, plan, executing.doc.get(plan.name).held)


async def finish_rollback(recorded: RecordedDeployment, executing: Executing) -> RollbackOutcome:
    """Wait for the revision of RECORDED's rollback if it is still rolling out."""

    async def operation(run: Run) -> None:
        await _guarded(run, recorded.name, lambda result: wait_for_redeploy(run, recorded, result))

    result = await carry_out(executing, recorded.name, recorded.id, operation)
    return RollbackOutcome(recorded.name, result, None, executing.doc.get(recorded.name).held)


async def carry_out(
    executing: Executing, name: str, deployment_id: str, operation: Operation
) -> ApplyResult:
    """Run OPERATION on NAME as apply runs its operations: its poller, its reporting of
    retries and pauses, its stop with a grace for the request in flight, a last flush."""
    client = executing.client
    client.gate = client.gate or BackoffGate()
    run = Run(
        client=client,
        recorder=StateRecorder(executing.backend, executing.doc),
        desired={},
        digest_key=b"",
        options=executing.options,
        reporter=executing.reporter,
        stop=executing.stop,
        results={name: DeploymentResult(name, Action.NEW_REVISION, deployment_id)},
    )
    result = ApplyResult(results=list(run.results.values()))
    started = run.options.clock()
    run.reporter.begin(result.results)
    try:
        run.poller.start()
        with observed(client, client.gate, run.reporter):
            await run_all(run, [operation(run)])
    finally:
        await run.poller.aclose()
        result.interrupted = run.stop.is_set()
        await run.recorder.flush()
        result.seconds = run.options.clock() - started
        run.reporter.end(result)
    return result


async def _guarded(
    run: Run, name: str, work: Callable[[DeploymentResult], Coroutine[Any, Any, None]]
) -> None:
    """WORK on NAME's result; a failure ends up in it (as apply's operations do)."""
    result = run.results[name]
    working_on.set(name)
    try:
        await work(result)
    except Exception as error:
        run.fail(result, error)


async def redeploy(run: Run, plan: RollbackPlan, by: str, result: DeploymentResult) -> None:
    """Journal, POST the redeploy, record it with the hold, follow its revision."""
    if run.stop.is_set():
        run.finish(result, Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
        return
    doc = run.recorder.doc
    details = redeploy_details(plan, by)
    intent = doc.add_intent(
        IntentOp.REDEPLOY, plan.name, deployment_id=plan.deployment_id, details=details
    )
    await run.recorder.commit()

    def send() -> Coroutine[Any, Any, Any]:
        run.begin(result, "redeploying")
        target, latest = plan.target.id, plan.latest_revision_id
        return run.client.redeploy(plan.deployment_id, target, latest=latest)

    deployment = await sent_journalled(run, result, intent, lambda: run.submit(send))
    if deployment is None:
        return
    rolled_back = rolled_back_record(doc.get(plan.name), deployment, plan.fields, hold_of(intent))
    await run.recorder.record(rolled_back, done=intent)
    await follow(run, result, deployment.latest_revision_id)


async def wait_for_redeploy(
    run: Run, recorded: RecordedDeployment, result: DeploymentResult
) -> None:
    """Follow the revision RECORDED's rollback made (its recorded latest revision) unless
    the deployment already runs it."""
    revision_id = recorded.latest_revision_id
    result.revision_id = revision_id
    if revision_id is None or revision_id == recorded.active_revision_id:
        run.finish(result, Outcome.SUCCEEDED, "DEPLOYED" if revision_id else "held")
        return
    run.begin(result, "waiting for the rollback's revision")
    await follow(run, result, revision_id)
