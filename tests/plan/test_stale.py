"""Saved plan staleness: every way a plan goes stale between `plan --out` and apply."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planner.api.models import Deployment
from planner.errors import PlanStaleError
from planner.plan.model import HeldDeployment
from planner.plan.refresh import Observed
from planner.plan.saved import SavedPlan
from planner.plan.stale import STALE_HINT, check_plan_fresh
from planner.state import StateDocument
from tests.plan.builders import HOLD, held
from tests.plan.test_saved import scene


def stale_error(saved: SavedPlan, doc: StateDocument, observed: Observed) -> PlanStaleError:
    with pytest.raises(PlanStaleError) as caught:
        check_plan_fresh(saved, doc, observed)
    return caught.value


def moved(live: Deployment, **changes: object) -> Deployment:
    return live.model_copy(update=changes)


def test_fresh_plan_passes() -> None:
    """Nothing moved: no error."""
    saved, doc, observed = scene()
    check_plan_fresh(saved, doc, observed)


def test_state_serial_moved() -> None:
    """A later state serial makes the plan stale, naming both serials."""
    saved, doc, observed = scene()
    doc.serial = 5
    error = stale_error(saved, doc, observed)
    assert error.message == "the plan is stale: the state moved from serial 4 to 5"
    assert error.details == []  # the headline is not repeated as a detail


def test_without_a_tenant_the_workspace_is_said_in_words() -> None:
    """A plan and state without a tenant id name the key's own workspace, never `-`."""
    saved, _, observed = scene()
    other = StateDocument.new("https://elsewhere.example.com", None)
    error = stale_error(saved, other, observed)
    assert "workspace -" not in error.message
    assert "https://elsewhere.example.com (no tenant id: the API key's own workspace)" in (
        error.message
    )


def test_state_replaced_or_foreign() -> None:
    """Another lineage or another endpoint makes the plan stale, each named."""
    saved, _, observed = scene()
    other = StateDocument.new("https://elsewhere.example.com", None)
    error = stale_error(saved, other, observed)
    assert error.message.startswith(
        "the plan is stale: the plan was made for http://127.0.0.1:8123"
    )
    assert [line.split(" (")[0] for line in error.details] == ["the state was replaced"]


def test_every_moved_deployment_is_listed() -> None:
    """updated_at and revision changes, and a name that appeared, are all in the details."""
    saved, doc, observed = scene()
    live = observed.by_name["api"]
    assert live is not None
    later = datetime(2030, 1, 1, tzinfo=UTC)
    observed = Observed(
        by_name={"api": moved(live, updated_at=later, latest_revision_id="rev-9")},
        unmanaged_existing={"new": "00000000-0000-4000-8000-00000000000e"},
    )
    error = stale_error(saved, doc, observed)
    assert error.message.startswith("the plan is stale: deployment api changed since the plan")
    assert "(updated_at " in error.message and "-> 2030-01-01T00:00:00Z)" in error.message
    assert any("new revision since the plan" in line and "rev-9" in line for line in error.details)
    assert any("deployment new appeared since the plan" in line for line in error.details)
    assert "planner plan --out" in (error.hint or "")


def test_deleted_since_the_plan() -> None:
    """A planned deployment gone at apply time makes the plan stale."""
    saved, doc, _ = scene()
    error = stale_error(saved, doc, Observed(by_name={"api": None}))
    assert "deployment api" in error.message and "was deleted since the plan" in error.message


def test_a_rollback_since_the_plan_makes_it_stale_even_at_the_same_serial() -> None:
    """A deployment the plan changes, held since (a rollback), makes the plan stale with the
    stale-plan message naming the hold, whether or not the serial moved."""
    saved, doc, observed = scene()
    doc.record(held(doc.deployments["api"]))
    error = stale_error(saved, doc, observed)
    assert error.message.startswith("the plan is stale: deployment api was rolled back")
    assert HOLD.revision_id in error.message and HOLD.by in error.message
    assert error.hint == STALE_HINT
    doc.serial += 1  # the rollback's own write: both are said
    error = stale_error(saved, doc, observed)
    assert "rolled back" in error.message and any("serial" in d for d in error.details)


def test_a_release_since_the_plan_makes_it_stale() -> None:
    """A deployment the plan listed as held and released since makes the plan stale."""
    saved, doc, observed = scene()
    doc.record(held(doc.deployments["api"]))
    plan = saved.plan.model_copy(update={"changes": [], "held": [held_entry_of("api")]})
    saved = saved.model_copy(update={"plan": plan})
    check_plan_fresh(saved, doc, observed)  # still held: fresh
    doc.record(doc.deployments["api"].model_copy(update={"held": None}))
    error = stale_error(saved, doc, observed)
    assert error.message == (
        "the plan is stale: deployment api was released since the plan (it listed it as held)"
    )


def held_entry_of(name: str) -> HeldDeployment:
    return HeldDeployment(
        address=name,
        revision=HOLD.revision_id,
        since=HOLD.since,
        by=HOLD.by,
        release_command=f"planner release {name}",
    )
