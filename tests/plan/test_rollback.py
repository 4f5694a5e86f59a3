"""Which revision a rollback redeploys and what that changes (`planner.plan.rollback`),
as pure functions over revision lists."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from planner.api.models import Revision
from planner.errors import PlanError
from planner.plan.rollback import (
    choose_target,
    finishes_earlier_rollback,
    is_forward,
    revision_changes,
)
from planner.state.holds import held, new_hold
from planner.state.records import RecordedDeployment

RECORDED = RecordedDeployment(name="api", id="d-1")
START = datetime(2026, 11, 23, tzinfo=UTC)


def revision(number: int, image: str, status: str = "DEPLOYED") -> Revision:
    """Revision r<NUMBER> of an image deployment (later numbers are newer)."""
    return Revision.model_validate(
        {
            "id": f"r{number}",
            "created_at": START + timedelta(minutes=number),
            "updated_at": START + timedelta(minutes=number),
            "status": status,
            "source": "internal_docker",
            "source_revision_config": {"image_uri": f"registry.example.com/{image}"},
        }
    )


def newest_first(*revisions: Revision) -> list[Revision]:
    return sorted(revisions, key=lambda r: r.created_at, reverse=True)


def test_the_default_is_the_last_deployed_revision_before_the_active_one() -> None:
    """Failed revisions and ones carrying what runs now are passed over."""
    revisions = newest_first(
        revision(1, "app:1"),
        revision(2, "app:2"),
        revision(3, "app:2"),  # a secrets change: same revision-level values
        revision(4, "app:3", "DEPLOY_FAILED"),
        revision(5, "app:2"),
    )
    assert choose_target(RECORDED, revisions, revisions[0], None).id == "r1"


def test_revisions_newer_than_the_active_one_are_not_candidates() -> None:
    """The active revision is the anchor: a newer one (a failed rollout) is skipped."""
    revisions = newest_first(
        revision(1, "app:1"), revision(2, "app:2"), revision(3, "app:3", "BUILD_FAILED")
    )
    assert choose_target(RECORDED, revisions, revisions[1], None).id == "r1"


@pytest.mark.parametrize(
    ("to", "message"),
    [
        ("r9", r"api \(deployment d-1\) has no revision r9"),
        ("r3", "already runs revision r3"),
        ("r2", "it is DEPLOY_FAILED"),
        ("r1", "already runs what revision r1 carries"),
    ],
)
def test_a_named_revision_that_cannot_be_redeployed_is_refused(to: str, message: str) -> None:
    """--to an unknown, the active, a failed revision, or one carrying what runs now:
    a PlanError naming the deployment and the revision."""
    revisions = newest_first(
        revision(1, "app:2"), revision(2, "app:9", "DEPLOY_FAILED"), revision(3, "app:2")
    )
    with pytest.raises(PlanError, match=message) as refused:
        choose_target(RECORDED, revisions, revisions[0], to)
    assert "planner history api" in (refused.value.hint or "")


def test_no_earlier_deployed_revision_is_an_error_naming_the_active_one() -> None:
    """One release only (or no active revision): nothing to roll back to."""
    only = [revision(1, "app:1")]
    with pytest.raises(PlanError, match=r"no earlier DEPLOYED revision .*active revision r1"):
        choose_target(RECORDED, only, only[0], None)
    with pytest.raises(PlanError, match="has no active revision"):
        choose_target(RECORDED, only, None, None)


def test_the_changes_are_the_revision_level_values_that_differ() -> None:
    """Only differing paths, active -> target; none when there is no active revision's."""
    changes = revision_changes(revision(2, "app:2"), revision(1, "app:1"))
    assert [(c.path, c.before, c.after) for c in changes] == [
        (
            "source_revision_config.image_uri",
            "registry.example.com/app:2",
            "registry.example.com/app:1",
        )
    ]
    assert {c.path for c in revision_changes(None, revision(1, "app:1"))} == {
        "source",
        "source_revision_config.image_uri",
    }


def test_a_held_deployment_rolled_back_again_finishes_the_earlier_rollback() -> None:
    """Held at r1: no --to, or --to r1, finishes that rollback; --to another revision
    is a new rollback; a deployment not held is always a new one."""
    hold = new_hold("r1", "ops@laptop", START)
    at_r1 = held(RECORDED, hold)
    assert finishes_earlier_rollback(at_r1, None) and finishes_earlier_rollback(at_r1, "r1")
    assert not finishes_earlier_rollback(at_r1, "r0")
    assert not finishes_earlier_rollback(RECORDED, None)


def test_after_a_rollback_and_a_release_the_default_never_goes_forward() -> None:
    """The active revision r3 redeploys r1 (a rollback, then released): the bad release
    r2 between them is newer than r1, so there is nothing earlier to go to; the error
    says which revision the active one redeploys."""
    revisions = newest_first(revision(1, "app:1"), revision(2, "app:2"), revision(3, "app:1"))
    with pytest.raises(PlanError, match="active revision r3 redeploys r1"):
        choose_target(RECORDED, revisions, revisions[0], None)


def test_the_default_goes_back_from_the_revision_the_active_one_repeats() -> None:
    """The active revision r4 repeats r2: the target is the last DEPLOYED revision before
    r2 that differs (r1), never r3 (the bad release rolled away from)."""
    revisions = newest_first(
        revision(1, "app:0"), revision(2, "app:1"), revision(3, "app:2"), revision(4, "app:1")
    )
    assert choose_target(RECORDED, revisions, revisions[0], None).id == "r1"


def test_a_named_revision_newer_than_the_original_is_allowed_and_goes_forward() -> None:
    """--to may still name the bad release after a rollback: it is chosen, and it is a
    rollback that goes forward; going further back is not."""
    revisions = newest_first(
        revision(1, "app:0"), revision(2, "app:1"), revision(3, "app:2"), revision(4, "app:1")
    )
    active = revisions[0]
    forward = choose_target(RECORDED, revisions, active, "r3")
    assert forward.id == "r3" and is_forward(revisions, active, forward)
    back = choose_target(RECORDED, revisions, active, "r1")
    assert not is_forward(revisions, active, back)


def test_a_unique_prefix_names_a_revision_and_an_ambiguous_one_is_refused() -> None:
    """--to accepts the start of exactly one revision id; a prefix of several is an error
    listing them."""
    revisions = newest_first(revision(10, "app:1"), revision(11, "app:2"), revision(20, "app:3"))
    active = revisions[1]
    assert choose_target(RECORDED, revisions, active, "r2").id == "r20"
    with pytest.raises(PlanError, match="has 2 revisions starting with r1: r11, r10"):
        choose_target(RECORDED, revisions, active, "r1")
