"""Deleting deposed deployments (the old ones of create-before-destroy replaces, recorded
under a derived address: `planner.state.moves`) only after their successor is deployed.

A deposed deployment whose successor this run changes or waits for is deleted once that
succeeded (its revision deployed); otherwise it is kept, running and recorded, for the
next plan: a failed new revision never takes the old deployment down with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.apply.context import Run
from planner.apply.results import Outcome
from planner.plan.model import Action, Change, Plan, Rollout
from planner.state.moves import successor_of


def split_deposed(
    deletes: list[Change], plan: Plan, rollouts: Sequence[Rollout]
) -> tuple[list[Change], list[Change]]:
    """DELETES to send now, and those of deposed records whose successor this run
    changes or waits for (sent after it: `after_successors`)."""
    busy = {c.name for c in plan.changes if c.action is not Action.NO_OP}
    busy |= {rollout.name for rollout in rollouts}
    later = [c for c in deletes if successor_of(c.name) in busy]
    return [c for c in deletes if c not in later], later


def after_successors(run: Run, later: list[Change]) -> list[Change]:
    """The deposed deletes of LATER whose successor succeeded; the others are kept
    (finished as not started, their `error` saying why)."""
    ready = []
    for change in later:
        successor = run.results[successor_of(change.name) or ""]
        if successor.outcome is Outcome.SUCCEEDED:
            ready.append(change)
        else:
            why = f"kept: {successor.name} was not deployed"
            run.finish(
                run.results[change.name], Outcome.NOT_STARTED, Outcome.NOT_STARTED.value, why
            )
    return ready
