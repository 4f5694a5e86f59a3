"""What an apply did, per deployment and in total (data only; `planner.render.apply_text`
turns it into the result table, `planner.render.summary` into the summary line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from planner.plan.model import Action, PlanMode, Recovered


class Outcome(StrEnum):
    """How one deployment's part of the apply ended."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SUBMITTED = "submitted"  # sent, not waited for (--no-wait, or interrupted while waiting)
    NOT_STARTED = "not started"  # interrupted before it was sent


class RunOutcome(StrEnum):
    """How the whole run ended (value = the JSON name of the summary event's outcome)."""

    COMPLETE = "complete"
    FAILED = "failed"  # a deployment failed (the others were carried out)
    INTERRUPTED = "interrupted"  # stopped by a signal


@dataclass
class DeploymentResult:
    """One deployment: what was done, the revision it got, its final status and timing.

    `status` is the last revision status seen (or `deleted`, `updated`, ...); `error`
    says why it failed, naming nothing secret. `rollout`: nothing was to be sent, but its
    latest revision (`revision_id`, submitted by an earlier apply) was still rolling out,
    so the run waited for it. `moved_from`: the plan moved it from that address (its
    record re-keyed, nothing sent for the move itself). `old_deleted`: a replace whose
    old deployment this run deleted (counted as deleted when the replace did not finish).
    """

    name: str
    action: Action
    deployment_id: str | None = None
    revision_id: str | None = None
    status: str = "pending"
    outcome: Outcome = Outcome.NOT_STARTED
    error: str | None = None
    started: float | None = None
    seconds: float = 0.0
    rollout: bool = False
    moved_from: str | None = None  # the address the state recorded it under (a move)
    old_deleted: bool = False

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAILED

    @property
    def changed(self) -> bool:
        """Something was sent for it."""
        return self.action is not Action.NO_OP

    @property
    def shown(self) -> bool:
        """Worth a row in the result table and progress: something was sent or waited for."""
        return self.changed or self.rollout


@dataclass
class ApplyResult:
    """Every deployment of the plan, in plan order, and whether the run was interrupted."""

    results: list[DeploymentResult] = field(default_factory=list)
    interrupted: bool = False
    mode: PlanMode = "normal"
    seconds: float = 0.0
    # what the plan adopted from an interrupted apply (creates it never recorded, ...)
    recovered: list[Recovered] = field(default_factory=list)

    @property
    def outcome(self) -> RunOutcome:
        if self.interrupted:
            return RunOutcome.INTERRUPTED
        return RunOutcome.FAILED if self.failed else RunOutcome.COMPLETE

    moved: int = 0  # records re-keyed to a new address (nothing sent for them)

    @property
    def failed(self) -> list[DeploymentResult]:
        return [r for r in self.results if r.failed]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted

    @property
    def not_started(self) -> int:
        """Deployments something was to be sent for, and nothing was (a stop came first)."""
        return sum(1 for r in self.results if r.outcome is Outcome.NOT_STARTED and r.changed)

    @property
    def rollouts(self) -> list[DeploymentResult]:
        """The rollouts of an earlier apply this run waited for."""
        return [r for r in self.results if r.rollout]

    @property
    def deleted(self) -> int:
        """Every deletion the run performed: the deletes that succeeded, and the replaces
        whose old deployment is gone without a new one counted as replaced (its create
        failed, or never started)."""
        replaced = (Outcome.SUCCEEDED, Outcome.SUBMITTED)
        halves = sum(
            1
            for r in self.results
            if r.action is Action.REPLACE and r.old_deleted and r.outcome not in replaced
        )
        return self.count(Action.DELETE) + halves

    def count(self, action: Action, *outcomes: Outcome) -> int:
        wanted = outcomes or (Outcome.SUCCEEDED, Outcome.SUBMITTED)
        return sum(1 for r in self.results if r.action is action and r.outcome in wanted)
