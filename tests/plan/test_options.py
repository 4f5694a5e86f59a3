"""What a plan is asked to cover: the empty-config guard."""

from __future__ import annotations

import pytest

from planner.errors import PlanError
from planner.plan.options import PlanOptions, check_not_emptied


def test_an_empty_config_over_a_managed_state_is_refused() -> None:
    """No desired deployment while the state manages some is a PlanError naming them."""
    with pytest.raises(PlanError, match=r"declares no deployments.*manages 2 \(api, worker\)"):
        check_not_emptied([], ["worker", "api"], PlanOptions())


def test_only_and_exclude_do_not_lift_the_guard() -> None:
    """--only / --exclude select from the plan; the rule is about the config itself."""
    for options in (PlanOptions(only={"api"}), PlanOptions(exclude={"api"})):
        with pytest.raises(PlanError, match="declares no deployments"):
            check_not_emptied([], ["api"], options)


@pytest.mark.parametrize(
    ("desired", "recorded", "options"),
    [
        ([], ["api"], PlanOptions(destroy=True)),
        ([], ["api"], PlanOptions(refresh_only=True)),
        ([], [], PlanOptions()),
        (["worker"], ["api"], PlanOptions()),
    ],
)
def test_destroy_refresh_only_an_empty_state_or_any_desired_pass(
    desired: list[str], recorded: list[str], options: PlanOptions
) -> None:
    """A destroy or refresh-only plan, an empty state, or one declared deployment pass."""
    check_not_emptied(desired, recorded, options)
