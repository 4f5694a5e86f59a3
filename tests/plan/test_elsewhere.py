"""Managed elsewhere: the pure plan given the ids other states of the config record."""

from __future__ import annotations

from planner.plan.diff import make_plan
from tests.plan.builders import KEY, git_desired, observed_from, recorded_from

OTHER_ID = "00000000-0000-4000-8000-0000000000aa"


def test_a_deployment_another_state_records_is_not_listed_as_unmanaged() -> None:
    """The workspace's deployments that another state records are left off `unmanaged`."""
    theirs, stray = observed_from(git_desired("theirs")), observed_from(git_desired("stray"))
    plan = make_plan(
        {},
        {},
        {},
        digest_key=KEY,
        unmanaged=[theirs, stray],
        managed_elsewhere={theirs.id: "state/planner.staging.state.json"},
    )
    assert [u.name for u in plan.unmanaged] == ["stray"]


def test_recreating_a_gone_deployment_whose_namesake_another_state_owns_is_an_error() -> None:
    """The recorded `api` is gone, and the `api` found now is another state's: no create,
    no import hint, an error naming that state."""
    api = git_desired("api")
    plan = make_plan(
        {"api": api},
        {"api": recorded_from(api)},
        {"api": None},
        digest_key=KEY,
        unmanaged_existing={"api": OTHER_ID},
        managed_elsewhere={OTHER_ID: "planner.prod"},
    )
    assert plan.changes == []
    (error,) = plan.errors
    assert (
        error.message
        == f"api already exists (id {OTHER_ID}) and is managed by the state planner.prod"
    )
