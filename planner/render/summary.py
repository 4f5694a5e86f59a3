"""The summary sentences of a plan and of an apply: the engine returns values, these
words are said here only (every view, text, markdown and the JSON events' `message`,
uses the same sentence)."""

from __future__ import annotations

from planner.apply.results import ApplyResult, RunOutcome
from planner.plan.model import Action, Plan

_RUN_ENDS = {
    RunOutcome.COMPLETE: "complete",
    RunOutcome.FAILED: "finished with errors",
    RunOutcome.INTERRUPTED: "interrupted",
}


def counted(n: int, noun: str) -> str:
    """`1 deployment`, `2 deployments`."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def plan_summary(plan: Plan) -> str:
    """`Plan: 1 to create, 2 to update in place, 3 new revisions, 1 to delete.`; the
    deployments a rollback holds are counted apart (never planned); a partial plan says
    so and never claims that everything matches."""
    line = _plan_counts(plan) if plan.has_changes else _no_changes(plan)
    if plan.held:
        line += f" {held_summary(len(plan.held))}"
    if plan.partial:
        line += f" Partial plan ({filters_text(plan)}): other deployments were not planned."
    return line


def held_summary(count: int) -> str:
    """`1 deployment held by a rollback: not planned until released.`"""
    return f"{counted(count, 'deployment')} held by a rollback: not planned until released."


def filters_text(plan: Plan) -> str:
    """`--only api --exclude worker`, as given."""
    flags = [f"--only {n}" for n in plan.only] + [f"--exclude {n}" for n in plan.exclude]
    return " ".join(flags)


def _plan_counts(plan: Plan) -> str:
    s = plan.summary
    parts = [
        f"{s.create} to create",
        f"{s.update} to update in place",
        counted(s.new_revision, "new revision"),
        f"{s.delete} to delete",
    ]
    if s.replace:
        parts.append(f"{s.replace} to replace")
    if s.moved:
        parts.append(f"{s.moved} to move")
    return f"Plan: {', '.join(parts)}."


def _no_changes(plan: Plan) -> str:
    if plan.mode == "refresh-only":
        if plan.drift:
            return f"No changes. {counted(len(plan.drift), 'drifted value')} to record."
        if plan.partial:
            return "No changes. Nothing changed outside the planner in the selection."
        return "No changes. Nothing changed outside the planner."
    if plan.errors:  # the config does not match: the errors say where
        return "No changes can be planned: the plan has errors."
    if plan.mode == "destroy":
        return "No changes. Nothing to destroy."
    if plan.rollouts:  # active is not latest yet: not converged, whatever the config
        waiting = counted(len(plan.rollouts), "rollout")
        return f"No changes to apply; {waiting} in progress: not converged yet."
    if plan.held:  # the config differs from what runs, by design: the hold says why
        return "No changes to apply."
    if plan.partial:
        return "No changes in the selected deployments."
    return "No changes. The deployments match the configuration."


def apply_summary(result: ApplyResult) -> str:
    """`Apply complete: 2 created, 1 updated, 3 new revisions, 1 deleted, 0 failed (4.2s).`

    A run with a failed deployment is never "complete" (`Apply finished with errors:`);
    the rollouts of an earlier apply it waited for are counted; the time is the whole
    run's (left out when not measured)."""
    parts = _apply_counts(result)
    if result.mode == "destroy":
        parts = parts[3:]  # only deletions (and what failed or never started)
    if result.rollouts:
        parts.append(f"waited for {counted(len(result.rollouts), 'rollout')}")
    verb = "Destroy" if result.mode == "destroy" else "Apply"
    took = f" ({result.seconds:.1f}s)" if result.seconds else ""
    return f"{verb} {_RUN_ENDS[result.outcome]}: {', '.join(parts)}{took}."


def _apply_counts(result: ApplyResult) -> list[str]:
    parts = [
        f"{result.count(Action.CREATE)} created",
        f"{result.count(Action.UPDATE)} updated",
        counted(result.count(Action.NEW_REVISION), "new revision"),
        f"{result.deleted} deleted",
    ]
    replaced = result.count(Action.REPLACE)
    if replaced and result.mode != "destroy":
        parts.append(f"{replaced} replaced")
    if result.moved:
        parts.append(f"{result.moved} moved")
    parts.append(f"{len(result.failed)} failed")
    if result.not_started:
        parts.append(f"{result.not_started} not started")
    return parts
