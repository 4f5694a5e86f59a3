"""The summary line of an apply."""

from __future__ import annotations

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action


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
    assert result.summary_line() == (
        "Apply complete: 2 created, 1 updated, 1 new revision, 1 deleted, 1 failed."
    )
    assert not result.ok
    result.results.append(row("h", Action.REPLACE, Outcome.SUCCEEDED))
    assert "1 replaced, 1 failed" in result.summary_line()


def test_an_interrupted_apply_says_so_and_counts_what_never_started() -> None:
    """The head says interrupted and the work never sent is counted as not started."""
    result = ApplyResult(
        results=[
            row("a", Action.CREATE, Outcome.SUCCEEDED),
            row("b", Action.CREATE, Outcome.NOT_STARTED),
        ],
        interrupted=True,
    )
    assert result.summary_line() == (
        "Apply interrupted: 1 created, 0 updated, 0 new revisions, 0 deleted, 0 failed, "
        "1 not started."
    )


def test_the_summary_ends_with_the_run_time_when_measured() -> None:
    """A measured run says how long it took, to a tenth of a second."""
    result = ApplyResult(results=[row("a", Action.CREATE, Outcome.SUCCEEDED)], seconds=3.14159)
    assert result.summary_line().endswith("0 failed (3.1s).")


def test_destroy_summary_counts_deletions_only() -> None:
    """A destroy reports what was deleted and what failed."""
    result = ApplyResult(
        results=[
            row("a", Action.DELETE, Outcome.SUCCEEDED),
            row("b", Action.DELETE, Outcome.FAILED),
        ],
        mode="destroy",
    )
    assert result.summary_line() == "Destroy complete: 1 deleted, 1 failed."
