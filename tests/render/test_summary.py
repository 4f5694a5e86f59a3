"""The summary sentences of a plan and of an apply (`planner.render.summary`)."""

from __future__ import annotations

import pytest

from planner.apply.results import ApplyResult, DeploymentResult, Outcome, RunOutcome
from planner.plan.model import Action, Change, Plan, PlanProblem, Summary
from planner.render.summary import apply_summary, plan_summary


@pytest.mark.parametrize(
    ("counts", "line"),
    [
        (
            {"create": 1, "update": 2, "new_revision": 3, "delete": 1},
            "Plan: 1 to create, 2 to update in place, 3 new revisions, 1 to delete.",
        ),
        (
            {"new_revision": 1, "replace": 1},
            "Plan: 0 to create, 0 to update in place, 1 new revision, 0 to delete, 1 to replace.",
        ),
    ],
)
def test_plan_summary_counts_each_action(counts: dict[str, int], line: str) -> None:
    """The summary line counts each action; replace only appears when there is one."""
    changes = [
        Change(name=f"{a}{i}", action=Action(a)) for a, n in counts.items() for i in range(n)
    ]
    plan = Plan(summary=Summary(**counts), changes=changes)
    assert plan_summary(plan) == line


def test_a_plan_with_only_errors_does_not_claim_the_config_matches() -> None:
    """A plan whose only changes are errors (an immutable field) never says "match"."""
    error = PlanProblem(name="api", path="source_config.repo_url", message="cannot change")
    plan = Plan(changes=[Change(name="api", action=Action.NO_OP)], errors=[error])
    assert plan_summary(plan) == "No changes can be planned: the plan has errors."


def test_an_empty_destroy_plan_says_there_is_nothing_to_destroy() -> None:
    """A destroy plan with nothing in the state does not claim the config matches."""
    plan = Plan(mode="destroy")
    assert plan_summary(plan) == "No changes. Nothing to destroy."


def row(name: str, action: Action, outcome: Outcome) -> DeploymentResult:
    return DeploymentResult(name, action, outcome=outcome)


def test_summary_counts_what_succeeded_or_was_submitted_and_what_failed() -> None:
    """Created, updated, new revisions, deleted, replaced (only when any) and failed."""
    result = ApplyResult(
        results=[
            row("a", Action.CREATE, Outcome.SUCCEEDED),
            row("b", Action.CREATE, Outcome.SUBMITTED),
            row("c", Action.UPDATE, Outcome.SUCCEEDED),
            row("d", Action.NEW_REVISION, Outcome.FAILED),
            row("e", Action.NEW_REVISION, Outcome.SUCCEEDED),
            row("f", Action.DELETE, Outcome.SUCCEEDED),
            row("g", Action.NO_OP, Outcome.SUCCEEDED),
        ]
    )
    assert apply_summary(result) == (
        "Apply finished with errors: 2 created, 1 updated, 1 new revision, 1 deleted, 1 failed."
    )
    assert not result.ok
    result.results.append(row("h", Action.REPLACE, Outcome.SUCCEEDED))
    assert "1 replaced, 1 failed" in apply_summary(result)


def test_an_interrupted_apply_says_so_and_counts_what_never_started() -> None:
    """The head says interrupted and the work never sent is counted as not started."""
    result = ApplyResult(
        results=[
            row("a", Action.CREATE, Outcome.SUCCEEDED),
            row("b", Action.CREATE, Outcome.NOT_STARTED),
        ],
        interrupted=True,
    )
    assert apply_summary(result) == (
        "Apply interrupted: 1 created, 0 updated, 0 new revisions, 0 deleted, 0 failed, "
        "1 not started."
    )


def test_the_summary_ends_with_the_run_time_when_measured() -> None:
    """A measured run says how long it took, to a tenth of a second."""
    result = ApplyResult(results=[row("a", Action.CREATE, Outcome.SUCCEEDED)], seconds=3.14159)
    assert apply_summary(result).endswith("0 failed (3.1s).")


def test_destroy_summary_counts_deletions_only() -> None:
    """A destroy reports what was deleted and what failed."""
    result = ApplyResult(
        results=[
            row("a", Action.DELETE, Outcome.SUCCEEDED),
            row("b", Action.DELETE, Outcome.FAILED),
        ],
        mode="destroy",
    )
    assert apply_summary(result) == "Destroy finished with errors: 1 deleted, 1 failed."


@pytest.mark.parametrize(
    ("outcomes", "interrupted", "expected"),
    [
        ((Outcome.SUCCEEDED,), False, RunOutcome.COMPLETE),
        ((Outcome.SUCCEEDED, Outcome.FAILED), False, RunOutcome.FAILED),
        ((Outcome.FAILED,), True, RunOutcome.INTERRUPTED),
    ],
)
def test_the_run_outcome_is_a_closed_enum(
    outcomes: tuple[Outcome, ...], interrupted: bool, expected: RunOutcome
) -> None:
    """A run is complete, failed or interrupted, as one enum whose values are the JSON
    names; only a run with no failure says "complete"."""
    rows = [row(f"d{i}", Action.CREATE, o) for i, o in enumerate(outcomes)]
    result = ApplyResult(results=rows, interrupted=interrupted)
    assert result.outcome is expected
    assert ("Apply complete" in apply_summary(result)) is (expected is RunOutcome.COMPLETE)
    assert [o.value for o in RunOutcome] == ["complete", "failed", "interrupted"]


def test_the_rollouts_waited_for_are_counted() -> None:
    """Rollouts of an earlier apply the run waited for are named in the summary."""
    waited = DeploymentResult("api", Action.NO_OP, outcome=Outcome.SUCCEEDED, rollout=True)
    result = ApplyResult(results=[waited])
    assert apply_summary(result) == (
        "Apply complete: 0 created, 0 updated, 0 new revisions, 0 deleted, 0 failed, "
        "waited for 1 rollout."
    )
