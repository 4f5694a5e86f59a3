"""Executing a rollback (`planner.apply.rollback`) on the in-process plane: the redeploy is
journalled in a durable write before it is sent, recorded with its hold when answered,
and nothing is sent when that write fails or a stop came first."""

from __future__ import annotations

import asyncio

import pytest

from planner.apply.results import Outcome
from planner.apply.rollback import Executing, RollbackOutcome, execute_rollback
from planner.errors import StateError
from planner.plan.rollback import plan_rollback
from planner.state.oplog import Group
from tests.apply.conftest import FAST, Harness, RecordingBackend, docker

pytestmark = pytest.mark.anyio


async def two_releases(harness: Harness) -> None:
    """worker applied at app:1, then at app:2 (both waited for)."""
    for image in ("registry.example.com/app:1", "registry.example.com/app:2"):
        harness.configure(docker("worker", image))
        assert (await harness.apply()).ok


async def rolled_back(harness: Harness, stop: asyncio.Event | None = None) -> RollbackOutcome:
    doc = harness.state()
    plan = await plan_rollback(harness.client, doc.get("worker"), None)
    executing = Executing(harness.client, harness.backend, doc, FAST, stop=stop or asyncio.Event())
    harness.backend.written.clear()
    return await execute_rollback(plan, "ops@laptop", executing)


async def revision_count(harness: Harness) -> int:
    worker = harness.state().get("worker")
    return len(await harness.client.list_revisions(worker.id))


async def test_the_redeploy_is_journalled_then_recorded_with_its_hold(harness: Harness) -> None:
    """The first write journals the redeploy (no hold yet), the next records the hold and
    the new revision and clears the entry, the last names that revision active."""
    await two_releases(harness)
    outcome = await rolled_back(harness)
    assert outcome.deployment.outcome is Outcome.SUCCEEDED
    journalled, recorded, *_, last = harness.backend.written
    assert [i.op for i in journalled.pending] == ["redeploy"]
    assert journalled.deployments["worker"].held is None
    hold = recorded.deployments["worker"].held
    assert recorded.pending == [] and hold is not None and hold.by == "ops@laptop"
    assert recorded.deployments["worker"].latest_revision_id == outcome.deployment.revision_id
    assert last.deployments["worker"].active_revision_id == outcome.deployment.revision_id
    assert outcome.hold == hold


class FullDisk(RecordingBackend):
    """A state whose operation log takes nothing (a full disk)."""

    def append(self, group: Group) -> None:
        raise StateError("cannot append to the operation log: No space left on device")


async def test_a_journal_write_that_fails_sends_nothing(harness: Harness) -> None:
    """When the redeploy's journal entry cannot be written, it is never sent: the
    rollback fails naming the write, and the deployment has no new revision."""
    await two_releases(harness)
    before = await revision_count(harness)
    full = FullDisk()
    full.write(harness.state())
    harness.backend = full
    harness.configure(docker("worker", "registry.example.com/app:2"))
    outcome = await rolled_back(harness)
    assert outcome.deployment.outcome is Outcome.FAILED
    assert "No space left on device" in (outcome.deployment.error or "")
    assert await revision_count(harness) == before


async def test_a_stop_before_sending_sends_nothing_and_journals_nothing(harness: Harness) -> None:
    """A stop that came before the redeploy: not started, no entry left, no revision."""
    await two_releases(harness)
    before = await revision_count(harness)
    stop = asyncio.Event()
    stop.set()
    outcome = await rolled_back(harness, stop)
    assert outcome.deployment.outcome is Outcome.NOT_STARTED and outcome.result.interrupted
    assert harness.state().pending == [] and harness.state().get("worker").held is None
    assert await revision_count(harness) == before
