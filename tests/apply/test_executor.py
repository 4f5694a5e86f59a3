"""The apply engine end to end against the local control plane, in-process."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from planner.api.models import Deployment, DeploymentCreate
from planner.api.retry import RetryNotice, RetryPolicy
from planner.apply import ApplyOptions, DeploymentResult, Outcome
from planner.controlplane.settings import ServerSettings
from planner.errors import PlanError, PlanStaleError
from planner.plan.model import Action
from planner.render.apply_events import counts
from planner.render.summary import apply_summary
from tests.apply.conftest import FAST, Harness, docker, git

pytestmark = pytest.mark.anyio


async def live(harness: Harness) -> dict[str, Deployment]:
    return {d.name: d async for d in harness.client.iter_deployments()}


async def test_creates_wait_for_deployed_and_record_everything(harness: Harness) -> None:
    """Creates run concurrently, each waits until DEPLOYED, and the state records id,
    managed values, secret digests and the deployed revision."""
    harness.environ["TOKEN"] = "s3cret-value"
    harness.configure(
        docker("alpha", extra='secrets = { TOKEN = { env = "TOKEN" } }\n'),
        docker("beta"),
    )
    result = await harness.apply()
    assert result.ok
    assert [(r.name, r.outcome, r.status) for r in result.results] == [
        ("alpha", Outcome.SUCCEEDED, "DEPLOYED"),
        ("beta", Outcome.SUCCEEDED, "DEPLOYED"),
    ]
    servers = await live(harness)
    recorded = harness.state().deployments
    assert recorded["alpha"].id == servers["alpha"].id
    assert recorded["alpha"].active_revision_id == result.results[0].revision_id
    assert recorded["alpha"].managed["source_revision_config"]["image_uri"].endswith("app:1")
    assert list(recorded["alpha"].secret_digests) == ["TOKEN"]
    assert "s3cret-value" not in harness.backend.store.text  # type: ignore[operator]
    plan, _ = await harness.plan()
    assert not plan.has_changes


async def test_update_new_revision_and_delete_in_one_apply(harness: Harness) -> None:
    """An in-place change PATCHes without a revision, a revision change gets one PATCH and
    is waited for, and a deployment gone from the config is bulk-deleted and forgotten."""
    harness.configure(git("alpha"), docker("beta"), docker("gamma"))
    await harness.apply()
    before = await live(harness)
    harness.configure(
        git("alpha", build_on_push=True), docker("beta", image="registry.example.com/app:2")
    )
    result = await harness.apply()
    by_name = {r.name: r for r in result.results}
    assert (by_name["alpha"].action, by_name["alpha"].status) == (Action.UPDATE, "updated")
    assert by_name["beta"].action is Action.NEW_REVISION
    assert by_name["beta"].status == "DEPLOYED"
    assert by_name["beta"].revision_id != before["beta"].latest_revision_id
    assert (by_name["gamma"].action, by_name["gamma"].status) == (Action.DELETE, "deleted")
    assert sorted(harness.state().deployments) == ["alpha", "beta"]
    assert apply_summary(result).startswith(
        "Apply complete: 0 created, 1 updated, 1 new revision, 1 deleted, 0 failed ("
    )
    after = await live(harness)
    assert after["alpha"].latest_revision_id == before["alpha"].latest_revision_id
    plan, _ = await harness.plan()
    assert not plan.has_changes


async def test_replace_deletes_waits_until_gone_and_creates_again(harness: Harness) -> None:
    """--replace deletes the old deployment, waits until it is gone, creates a new one
    under the same name and records the new id."""
    harness.configure(docker("alpha"))
    await harness.apply()
    old_id = harness.state().deployments["alpha"].id
    result = await harness.apply(replace={"alpha"})
    assert result.ok and result.results[0].status == "DEPLOYED"
    new_id = harness.state().deployments["alpha"].id
    assert new_id != old_id
    assert {d.id for d in (await live(harness)).values()} == {new_id}
    assert harness.state().pending == []


async def test_a_replace_whose_create_fails_after_its_delete_counts_the_delete(
    harness: Harness,
) -> None:
    """The new name taken between plan and apply: the old deployment is deleted, the
    create gets 409; the replace fails, and the summary (text and JSON events) counts
    the deletion it performed."""
    harness.configure(docker("alpha", extra='name = "alpha-blue"\n'))
    await harness.apply()
    harness.configure(docker("alpha", extra='name = "alpha-green"\n'))
    plan, doc = await harness.plan(replace={"alpha"})
    assert [c.action for c in plan.changes] == [Action.REPLACE]
    body = {"name": "alpha-green", "source": "internal_docker", "source_revision_config": {}}
    await harness.client.create_deployment(DeploymentCreate.model_validate(body))
    result = await harness.execute(plan, doc)
    (replaced,) = result.failed
    assert replaced.name == "alpha" and "409" in (replaced.error or "")
    assert "alpha-blue" not in await harness.names_on_server()
    assert result.deleted == 1
    assert ", 1 deleted, 1 failed" in apply_summary(result)
    assert counts(result).deleted == 1


async def test_a_failing_revision_fails_only_its_deployment(harness: Harness) -> None:
    """A revision that ends BUILD_FAILED fails its deployment (status and id in the
    error); the others reach DEPLOYED, and the failed one is still recorded."""
    harness.configure(
        docker("good"), docker("bad", image="registry.example.com/fail-build:1"), docker("fine")
    )
    result = await harness.apply()
    by_name = {r.name: r for r in result.results}
    assert [r.name for r in result.failed] == ["bad"]
    assert by_name["bad"].status == "BUILD_FAILED"
    assert "BUILD_FAILED" in (by_name["bad"].error or "")
    assert by_name["good"].status == by_name["fine"].status == "DEPLOYED"
    assert sorted(harness.state().deployments) == ["bad", "fine", "good"]
    assert "1 failed" in apply_summary(result)


async def test_partial_bulk_delete_records_only_what_is_gone(harness: Harness) -> None:
    """A bulk delete where one id is already being deleted gets a 207; reading back shows
    every id gone or going, so both are forgotten and the kept one stays recorded."""
    harness.configure(docker("keep"), docker("one"), docker("two"))
    await harness.apply()
    harness.configure(docker("keep"))
    plan, doc = await harness.plan()
    await harness.client.delete_deployments([doc.deployments["one"].id])
    result = await harness.execute(plan, doc, options=FAST)
    deleted = [(r.name, r.status) for r in result.results if r.action is Action.DELETE]
    assert deleted == [("one", "deleted"), ("two", "deleted")]
    assert sorted(harness.state().deployments) == ["keep"]
    plan, _ = await harness.plan()
    assert not plan.has_changes


async def test_every_create_is_journalled_before_it_is_sent(harness: Harness) -> None:
    """The state is written after every operation: each create appears first as a
    pending intent, then as a record with the intent cleared, never the other way."""
    harness.configure(*(docker(f"d{i}") for i in range(6)))
    await harness.apply()
    first_seen: dict[str, str] = {}
    for doc in harness.backend.written:
        for intent in doc.pending:
            first_seen.setdefault(intent.name, "intent")
        for name in doc.deployments:
            first_seen.setdefault(name, "record")
    assert first_seen == {f"d{i}": "intent" for i in range(6)}
    assert harness.state().pending == []
    serials = [doc.serial for doc in harness.backend.written]
    assert serials == sorted(serials)  # appends keep the serial; versions move it


async def test_no_wait_returns_after_submitting(harness: Harness) -> None:
    """--no-wait records the new deployments and returns without polling revisions."""
    harness.configure(docker("alpha"))
    result = await harness.apply(options=replace(FAST, wait=False))
    assert result.results[0].outcome is Outcome.SUBMITTED
    assert result.ok
    assert "alpha" in harness.state().deployments


async def test_wait_timeout_fails_the_deployment(harness: Harness, plane_settings: object) -> None:
    """A revision still building when --wait-timeout runs out fails with its status."""
    harness.configure(docker("slow"))
    slow = replace(FAST, wait_timeout=0.0)
    result = await harness.apply(options=slow)
    assert result.results[0].outcome is Outcome.FAILED
    assert "(--wait-timeout)" in (result.results[0].error or "")  # still X, or no status read yet
    assert "slow" in harness.state().deployments


async def test_stop_before_start_sends_nothing(harness: Harness) -> None:
    """When the stop signal is already set, nothing is sent and nothing is recorded."""
    harness.configure(docker("alpha"), docker("beta"))
    plan, doc = await harness.plan()
    stop = asyncio.Event()
    stop.set()
    result = await harness.execute(plan, doc, options=FAST, stop=stop)
    assert result.interrupted and not result.ok
    assert {r.outcome for r in result.results} == {Outcome.NOT_STARTED}
    assert await harness.names_on_server() == []


async def test_stop_while_waiting_keeps_what_was_created(
    harness: Harness, plane_settings: ServerSettings
) -> None:
    """A stop during the revision waits ends them at once; what was created is recorded
    and reported as submitted."""
    plane_settings.deploy_seconds = 30.0  # the revision is surely still on its way when seen
    harness.configure(docker("alpha"))
    plan, doc = await harness.plan()
    stop = asyncio.Event()

    class StopOnFirstStatus:
        def begin(self, results: object) -> None: ...
        def end(self, result: object) -> None: ...
        def retry(self, notice: object, deployment: object) -> None: ...
        def pause(self, seconds: object, deployment: object) -> None: ...
        def update(self, result: object) -> None:
            if getattr(result, "status", None):  # the first status seen, whichever it is
                stop.set()

    result = await harness.execute(
        plan, doc, options=replace(FAST, wait_timeout=60.0), reporter=StopOnFirstStatus(), stop=stop
    )
    assert result.interrupted
    assert result.results[0].outcome is Outcome.SUBMITTED
    assert "alpha" in harness.state().deployments


async def test_a_plan_with_errors_is_refused_before_any_request(harness: Harness) -> None:
    """A plan carrying errors raises PlanError and creates nothing."""
    harness.configure(git("alpha"))
    await harness.apply()
    harness.configure(git("alpha").replace("acme/alpha", "acme/other"))
    plan, doc = await harness.plan()
    assert plan.has_errors
    with pytest.raises(PlanError):
        await harness.execute(plan, doc)


async def test_secrets_changed_since_the_plan_are_refused(harness: Harness) -> None:
    """A secret whose value moved between plan and apply makes the plan stale."""
    harness.environ["TOKEN"] = "one"
    harness.configure(docker("alpha", extra='secrets = { TOKEN = { env = "TOKEN" } }\n'))
    plan, doc = await harness.plan()
    harness.environ["TOKEN"] = "two"
    harness.configure(docker("alpha", extra='secrets = { TOKEN = { env = "TOKEN" } }\n'))
    with pytest.raises(PlanStaleError, match="the secret TOKEN of alpha changed since the plan"):
        await harness.execute(plan, doc)
    assert await harness.names_on_server() == []


async def test_deleted_outside_is_created_again_and_the_old_record_replaced(
    harness: Harness,
) -> None:
    """A recorded deployment deleted outside the planner is created again; the state
    then holds the new id and no leftover journal entry."""
    harness.configure(docker("alpha"))
    await harness.apply()
    old_id = harness.state().deployments["alpha"].id
    await harness.client.delete_deployments([old_id])
    result = await harness.apply()
    assert result.ok and result.results[0].action is Action.CREATE
    state = harness.state()
    assert state.deployments["alpha"].id != old_id
    assert state.pending == []


async def test_parallelism_one_still_converges(harness: Harness) -> None:
    """With one request at a time, every deployment is still created and deployed."""
    harness.configure(*(docker(f"d{i}") for i in range(4)))
    result = await harness.apply(options=replace(FAST, parallelism=1))
    assert result.ok
    assert await harness.names_on_server() == ["d0", "d1", "d2", "d3"]


async def test_released_field_is_rerecorded_without_a_request(harness: Harness) -> None:
    """A field the config stopped setting is released: apply sends nothing for it but
    re-records the managed values, so the next plan has no note about it."""
    harness.configure(git("alpha", build_on_push=True))
    await harness.apply()
    harness.configure(git("alpha").replace("build_on_push = false\n", ""))
    plan, _ = await harness.plan()
    assert plan.changes[0].action is Action.NO_OP and plan.changes[0].notes
    result = await harness.apply(options=ApplyOptions(poll=FAST.poll))
    assert result.ok
    assert "build_on_push" not in harness.state().deployments["alpha"].managed["source_config"]
    plan, _ = await harness.plan()
    assert plan.changes[0].notes == []


async def test_a_secret_that_moved_after_planning_refuses_even_a_no_op(harness: Harness) -> None:
    """A plan that sends no secret still records its digests, so a value that changed
    since it was planned refuses the plan before anything is sent or recorded."""
    harness.environ["TOKEN"] = "planned-value"
    tables = docker("alpha", extra='secrets = { TOKEN = { env = "TOKEN" } }\n')
    harness.configure(tables)
    await harness.apply()
    plan, doc = await harness.plan()
    assert not plan.has_changes and plan.changes[0].secret_digests
    harness.environ["TOKEN"] = "another-value"
    harness.configure(tables)
    with pytest.raises(PlanStaleError) as caught:
        await harness.execute(plan, doc)
    assert (
        caught.value.message
        == "the plan is stale: the secret TOKEN of alpha changed since the plan"
    )
    assert "another-value" not in str(caught.value)


@pytest.mark.parametrize("plane_settings", [0.5], indirect=True)
async def test_a_name_held_by_a_deployment_being_deleted_is_waited_out(
    harness: Harness,
) -> None:
    """Creating a name whose old deployment is still being deleted gets a 409; apply
    waits until the old one is gone and then creates it (once)."""
    harness.configure(docker("alpha"))
    body = {"name": "alpha", "source": "internal_docker", "source_revision_config": {}}
    old = await harness.client.create_deployment(DeploymentCreate.model_validate(body))
    await harness.client.delete_deployments([old.id])
    seen: list[str] = []

    class Statuses:
        def begin(self, results: object) -> None: ...
        def end(self, result: object) -> None: ...
        def retry(self, notice: object, deployment: object) -> None: ...
        def pause(self, seconds: object, deployment: object) -> None: ...
        def update(self, result: DeploymentResult) -> None:
            seen.append(result.status)

    result = await harness.apply(reporter=Statuses())
    assert result.ok, result.results[0].error
    assert "waiting for the name to be free" in seen
    live_now = await live(harness)
    assert list(live_now) == ["alpha"] and live_now["alpha"].id != old.id
    assert harness.state().deployments["alpha"].id == live_now["alpha"].id


async def test_every_patch_and_delete_is_journalled_before_it_is_sent(harness: Harness) -> None:
    """A PATCH and a delete each appear first as a pending intent in a written state
    (the PATCH with the values it sets), then the intent is cleared with the record."""
    harness.configure(docker("beta"), docker("gamma"))
    await harness.apply()
    harness.configure(docker("beta", image="registry.example.com/app:2"))
    await harness.apply()
    seen = [(i.op, i.name) for doc in harness.backend.written for i in doc.pending]
    assert ("update", "beta") in seen and ("delete", "gamma") in seen
    update = next(i for doc in harness.backend.written for i in doc.pending if i.op == "update")
    assert update.details["fields"] == {
        "source_revision_config.image_uri": "registry.example.com/app:2"
    }
    assert harness.state().pending == []


class Notices:
    """A reporter that keeps the retries and pauses it hears, with the deployment named."""

    def __init__(self) -> None:
        self.retries: list[tuple[int | None, str | None]] = []
        self.pauses: list[tuple[float, str | None]] = []

    def begin(self, results: object) -> None: ...
    def end(self, result: object) -> None: ...
    def update(self, result: object) -> None: ...

    def retry(self, notice: RetryNotice, deployment: str | None) -> None:
        self.retries.append((notice.status, deployment))

    def pause(self, seconds: float, deployment: str | None) -> None:
        self.pauses.append((seconds, deployment))


async def test_retries_are_reported_naming_the_deployment_whose_request_it_was(
    harness: Harness, plane_settings: ServerSettings
) -> None:
    """With 30% of requests answered 503, the apply converges and the reporter hears each
    retry with its status and the deployment whose task sent it; afterwards the client
    no longer reports to it."""
    plane_settings.error_rate, plane_settings.random_seed = 0.3, 7
    harness.client.retry = RetryPolicy(base_delay=0.01, max_delay=0.05, max_attempts=10)
    harness.configure(docker("alpha"), docker("beta"), docker("gamma"))
    notices = Notices()
    result = await harness.apply(reporter=notices)
    assert result.ok
    assert notices.retries, "seed 7 answers some requests 503"
    assert {status for status, _ in notices.retries} == {503}
    assert {name for _, name in notices.retries} <= {"alpha", "beta", "gamma", None}
    assert any(name is not None for _, name in notices.retries)
    assert harness.client.on_retry is None


async def test_a_rate_limit_is_reported_as_pauses_not_as_retries(
    harness: Harness, plane_settings: ServerSettings
) -> None:
    """With 3 requests a second allowed, 4 creates at once make the plane answer 429s:
    the reporter hears them as pauses (at most one per 429), never as retries."""
    plane_settings.rate_limit = 3
    harness.configure(*(docker(f"d{i}") for i in range(4)))
    notices = Notices()
    result = await harness.apply(reporter=notices)
    assert result.ok
    assert notices.pauses and notices.retries == []
    assert harness.client.gate is not None
    assert len(notices.pauses) <= harness.client.gate.holds
