"""The work of one deployment: create, PATCH, or replace (after its delete), then wait.

Every operation checks the stop signal before it sends anything, records its result in
the state as soon as the server answered, and reports each status change. Errors end
that deployment only; the others carry on.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial

from planner.api.errors import ConflictError
from planner.api.models import (
    FAILURE_STATUSES,
    Deployment,
    DeploymentCreate,
    RevisionStatus,
    is_being_deleted,
)
from planner.apply.context import Run, working_on
from planner.apply.record_updates import with_revision
from planner.apply.results import DeploymentResult, Outcome
from planner.apply.waiter import WaitEnd
from planner.errors import ApiError, ApplyError
from planner.plan.body import planned_create_body, planned_patch
from planner.plan.model import Action, Change, Plan, Rollout
from planner.plan.record_builders import recorded_from
from planner.plan.recovery import update_intent_details
from planner.state.document import PendingIntent
from planner.state.moves import depose

logger = logging.getLogger("planner.apply")


async def apply_change(run: Run, change: Change, intent: PendingIntent | None = None) -> None:
    """Create, PATCH or replace one deployment; failures end up in its result."""
    result = run.results[change.name]
    working_on.set(change.name)  # this task's own context: the others keep theirs
    try:
        if change.action is Action.CREATE:
            await create(run, change, result)
        elif change.action in (Action.UPDATE, Action.NEW_REVISION):
            await patch(run, change, result)
        elif change.action is Action.REPLACE and change.create_before_destroy:
            await create_first(run, change, result)
        elif change.action is Action.REPLACE:
            await recreate(run, change, result, intent)
    except Exception as error:  # one deployment's failure must not stop the others
        logger.debug("%s failed: %s", change.name, type(error).__name__)
        run.fail(result, error)


async def create(
    run: Run,
    change: Change,
    result: DeploymentResult,
    intent: PendingIntent | None = None,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Journal, POST, record; then follow the first revision.

    The journal write happens before a request slot is taken, so the intents of many
    creates share one write; the record is written after the slot is given back."""
    desired = run.desired[change.name]
    if run.stop.is_set():
        run.finish(result, Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
        return
    intent = intent or await run.recorder.journal_create(change.name)

    def create_body() -> DeploymentCreate:  # built in its request slot: thousands wait for one
        return DeploymentCreate.model_validate(planned_create_body(change, desired.secret_values()))

    deployment = await sent_journalled(run, result, intent, partial(post, run, result, create_body))
    if deployment is None:
        return
    await run.recorder.record(
        recorded_from(desired, deployment, change.secret_digests), done=intent
    )
    result.deployment_id, revision_id = deployment.id, deployment.latest_revision_id
    del deployment
    await follow(run, result, revision_id, then)


async def sent_journalled(
    run: Run,
    result: DeploymentResult,
    intent: PendingIntent,
    send: Callable[[], Awaitable[Deployment | None]],
) -> Deployment | None:
    """SEND a journalled request: the deployment it answered with, or None (and the
    result finished as not started) when stopped before sending. The intent is dropped
    when nothing happened on the server: stopped first, or refused with a 4xx."""
    try:
        deployment = await send()
    except ApiError as error:
        if error.status is not None and 400 <= error.status < 500:
            await run.recorder.drop(intent)  # refused: nothing was done
        raise
    if deployment is None:
        await run.recorder.drop(intent)
        run.finish(result, Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
    return deployment


async def post(
    run: Run, result: DeploymentResult, body: Callable[[], DeploymentCreate]
) -> Deployment | None:
    """POST the BODY built once a request slot is free (None when stopped before it was
    sent); a name still held by a deployment being deleted is waited out, once."""

    def send() -> Awaitable[Deployment]:
        create = body()
        run.begin(result, "creating")
        return run.client.create_deployment(create)

    try:
        return await run.submit(send)
    except ConflictError:
        holder = await run.request(lambda: run.client.find_by_name(body().name))
        if holder is None or not is_being_deleted(holder.status):
            raise
    run.status(result, "waiting for the name to be free")
    gone = await run.poller.gone(holder.id)
    if gone.end is not WaitEnd.FINAL:
        raise ApplyError(f"the name is still held by deployment {holder.id}")
    return await run.submit(send)


async def patch(run: Run, change: Change, result: DeploymentResult) -> None:
    """One PATCH carrying every change of the deployment; follow its revision if it made one."""
    desired = run.desired[change.name]
    assert change.deployment_id is not None  # update/new_revision target a recorded id
    deployment_id = change.deployment_id
    update = planned_patch(change, desired.secret_values())

    def send() -> Awaitable[Deployment]:
        run.begin(result, "updating")
        return run.client.patch_deployment(deployment_id, update)

    if run.stop.is_set():
        run.finish(result, Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
        return
    details = update_intent_details(change)
    intent = await run.recorder.journal_update(change.name, deployment_id, details)
    deployment = await sent_journalled(run, result, intent, lambda: run.submit(send))
    if deployment is None:
        return
    await run.recorder.record(
        recorded_from(desired, deployment, change.secret_digests), done=intent
    )
    if change.action is Action.UPDATE:
        run.finish(result, Outcome.SUCCEEDED, "updated")
        return
    await follow(run, result, deployment.latest_revision_id)


async def recreate(
    run: Run, change: Change, result: DeploymentResult, intent: PendingIntent | None
) -> None:
    """The second half of a replace: the old deployment was deleted; once it is gone
    (its name is free again), create the new one."""
    if intent is None:  # the delete failed: already reported
        return
    assert change.deployment_id is not None
    run.status(result, "waiting for the old one to go")
    gone = await run.poller.gone(change.deployment_id)
    if gone.end is WaitEnd.STOPPED:
        run.finish(result, Outcome.NOT_STARTED, Outcome.NOT_STARTED.value)
        return
    if gone.end is WaitEnd.TIMEOUT:
        message = f"the old deployment {change.deployment_id} was not gone in time"
        if gone.last_error is not None:
            message += f" (last poll error: {gone.last_error})"
        run.fail(result, message)
        return
    await create(run, change, result, intent)


def rollouts_to_wait(plan: Plan, wait: bool) -> list[Rollout]:
    """The rollouts an apply waits for though it sends nothing for them: the latest
    revisions still in progress (an earlier apply, interrupted or `--no-wait`, submitted
    them) of deployments the plan leaves alone; none with `--no-wait`."""
    if not wait or plan.mode != "normal":
        return []
    idle = {change.name for change in plan.changes_with(Action.NO_OP)}
    return [rollout for rollout in plan.rollouts if rollout.name in idle]


async def wait_for_rollout(run: Run, rollout: Rollout) -> None:
    """Wait for ROLLOUT's revision like for one this run submitted (deadline, stop,
    failure), and record it once it is deployed."""
    result = run.results[rollout.name]
    working_on.set(rollout.name)
    result.deployment_id = rollout.deployment_id
    run.begin(result, rollout.status)
    try:
        await follow(run, result, rollout.revision_id)
    except Exception as error:  # one deployment's failure must not stop the others
        run.fail(result, error)


async def create_first(run: Run, change: Change, result: DeploymentResult) -> None:
    """A replace under lifecycle.create_before_destroy: create the new deployment (its
    new remote name is free), wait for its revision, then delete the old one. The old
    one is deposed first (recorded under a derived address, in the write that journals
    the create) and forgotten only once its delete succeeded: a failed revision or a run
    that dies leaves it running and recorded, and the next plan deletes it."""
    old_id = change.deployment_id
    assert old_id is not None  # a replace targets a recorded id
    deposed = depose(run.recorder.doc, change.name)

    async def delete_old() -> None:
        if run.stop.is_set():
            raise ApplyError(f"stopped before the old deployment {old_id} was deleted")
        run.status(result, "deleting the old deployment")
        await run.recorder.journal_deletes({deposed: old_id})
        outcome = await run.request(lambda: run.client.delete_deployments([old_id]))
        if old_id not in outcome.deleted:
            await run.recorder.drop_deletes(deposed)
            why = outcome.failed.get(old_id, "not deleted")
            raise ApplyError(f"the old deployment {old_id} was not deleted: {why}")
        result.old_deleted = True
        await run.recorder.forget(deposed)

    try:
        await create(run, change, result, then=delete_old)
    finally:
        if result.deployment_id is None and not run.recorder.doc.intents_for(change.name):
            await run.recorder.restore(deposed, change.name)  # nothing was created


async def follow(
    run: Run,
    result: DeploymentResult,
    revision_id: str | None,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Wait for the revision (unless --no-wait) and record how it ended; THEN (waited
    for, even with --no-wait) runs once it is deployed, before the deployment succeeds."""
    result.revision_id = revision_id
    if revision_id is None or not (run.options.wait or then):
        run.finish(result, Outcome.SUBMITTED, Outcome.SUBMITTED.value)
        return
    assert result.deployment_id is not None
    waited = await run.poller.revision(
        result.deployment_id, revision_id, lambda s: run.status(result, s)
    )
    status = waited.status or "unknown"
    if waited.end is WaitEnd.STOPPED:
        run.finish(result, Outcome.SUBMITTED, status)
    elif waited.end is WaitEnd.TIMEOUT:
        timeout = run.options.wait_timeout
        message = wait_timeout_message(revision_id, waited.status, timeout)
        if waited.last_error is not None:
            message += f" (last poll error: {waited.last_error})"
        run.fail(result, message)
    elif status in FAILURE_STATUSES:
        run.finish(result, Outcome.FAILED, status, f"revision {revision_id} ended {status}")
    else:
        await record_revision(run, result.name, revision_id, status)
        if then is not None:
            await then()
        run.finish(result, Outcome.SUCCEEDED, status)


def wait_timeout_message(revision_id: str, status: str | None, timeout: float) -> str:
    """`revision R still DEPLOYING after 1800s (--wait-timeout)`; STATUS None: no poll
    answered within the wait."""
    waited = f"{timeout:g}s (--wait-timeout)"
    if status is None:
        return f"revision {revision_id}: no status read within the wait of {waited}"
    return f"revision {revision_id} still {status} after {waited}"


async def record_revision(run: Run, name: str, revision_id: str, status: str) -> None:
    recorded = run.recorder.current(name)
    if recorded is None or status != RevisionStatus.DEPLOYED:
        return
    await run.recorder.record(with_revision(recorded, revision_id, deployed=True))
