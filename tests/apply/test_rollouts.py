"""An apply waits for the rollouts an earlier apply left in progress (interrupted, or
`--no-wait`) before it reports success, with the usual wait rules, sending nothing."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from planner.apply import Outcome
from planner.controlplane.settings import ServerSettings
from planner.plan.model import Action
from planner.render.apply_events import EventStream
from planner.render.summary import apply_summary
from tests.apply.conftest import FAST, Harness, docker
from tests.event_lines import event_lines

pytestmark = pytest.mark.anyio

NO_WAIT = replace(FAST, wait=False)


@pytest.fixture
def plane_settings(tmp_path: Path) -> ServerSettings:
    """Revisions slow enough to be still in progress when the next apply plans (an
    internal_docker revision has no build: its deploy is the whole rollout)."""
    return ServerSettings(db_path=tmp_path / "cp.db", build_seconds=0.1, deploy_seconds=2.5)


async def left_rolling_out(harness: Harness, image: str = "registry.example.com/app:1") -> str:
    """Apply `alpha` without waiting: its first revision is still in progress; its id."""
    harness.configure(docker("alpha", image=image))
    first = await harness.apply(options=NO_WAIT)
    assert first.results[0].outcome is Outcome.SUBMITTED
    revision = first.results[0].revision_id
    assert revision is not None
    return revision


async def test_the_next_apply_waits_for_the_rollout_and_records_it(harness: Harness) -> None:
    """With nothing to change, the apply waits for the revision still building (its
    events: a status and an operation of action no_op), records it as active, and the
    plan after it has no rollout left."""
    revision = await left_rolling_out(harness)
    plan, doc = await harness.plan()
    assert [r.revision_id for r in plan.rollouts] == [revision] and not plan.has_changes
    out = io.StringIO()
    result = await harness.execute(plan, doc, reporter=EventStream(out, "apply"))
    [row] = result.results
    assert (row.rollout, row.action, row.outcome) == (True, Action.NO_OP, Outcome.SUCCEEDED)
    assert (row.status, row.revision_id) == ("DEPLOYED", revision)
    assert apply_summary(result).startswith("Apply complete: 0 created") and result.ok
    assert "waited for 1 rollout" in apply_summary(result)
    events = event_lines(out.getvalue())
    assert events[0]["rollouts"] == 1 and events[0]["changes"] == 0
    ends = [e for e in events if e["type"] == "operation"]
    assert [(e["deployment"], e["action"], e["outcome"]) for e in ends] == [
        ("alpha", "no_op", "succeeded")
    ]
    assert harness.state().deployments["alpha"].active_revision_id == revision
    after, _ = await harness.plan()
    assert after.rollouts == []


async def test_no_wait_does_not_wait_for_the_rollout(harness: Harness) -> None:
    """`--no-wait` returns at once: the rollout gets no row and nothing is waited for."""
    await left_rolling_out(harness)
    result = await harness.apply(options=NO_WAIT)
    assert [(r.rollout, r.outcome, r.status) for r in result.results] == [
        (False, Outcome.SUCCEEDED, "no changes")
    ]


async def test_the_wait_timeout_bounds_the_wait_for_a_rollout(harness: Harness) -> None:
    """A rollout still in progress after `--wait-timeout` fails the run, naming it."""
    revision = await left_rolling_out(harness)
    result = await harness.apply(options=replace(FAST, wait_timeout=0.05))
    [row] = result.failed
    assert row.rollout and f"revision {revision}" in (row.error or "")
    assert "(--wait-timeout)" in (row.error or "")
    assert apply_summary(result).startswith("Apply finished with errors:")


async def test_a_rollout_that_fails_fails_the_apply(harness: Harness) -> None:
    """A rollout that ends DEPLOY_FAILED while waited for is a failure of the run."""
    await left_rolling_out(harness, image="registry.example.com/fail-deploy:1")
    result = await harness.apply()
    [row] = result.failed
    assert (row.rollout, row.status) == (True, "DEPLOY_FAILED")
