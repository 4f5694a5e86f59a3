"""What an apply did, per deployment and in total (data only; `planner.render.apply_text`
turns it into the result table and the summary line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from planner.plan.model import Action, PlanMode, counted


class Outcome(StrEnum):
    """How one deployment's part of the apply ended."""

    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SUBMITTED = "submitted"  # sent, not waited for (--no-wait, or interrupted while waiting)
    NOT_STARTED = "not started"  # interrupted before it was sent


@dataclass
class DeploymentResult:
    """One deployment: what was done, the revision it got, its final status and timing.

    `status` is the last revision status seen (or `deleted`, `updated`, ...); `error`
    says why it failed, naming nothing secret.
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

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAILED

    @property
    def changed(self) -> bool:
        """Something was sent for it (it is worth a row in the result table)."""
        return self.action is not Action.NO_OP


@dataclass
class ApplyResult:
    """Every deployment of the plan, in plan order, and whether the run was interrupted."""

    results: list[DeploymentResult] = field(default_factory=list)
    interrupted: bool = False
    mode: PlanMode = "normal"
    seconds: float = 0.0
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

    def count(self, action: Action, *outcomes: Outcome) -> int:
        wanted = outcomes or (Outcome.SUCCEEDED, Outcome.SUBMITTED)
        return sum(1 for r in self.results if r.action is action and r.outcome in wanted)

    def summary_line(self) -> str:
        """`Apply complete: 2 created, 1 updated, 3 new revisions, 1 deleted, 0 failed (4.2s).`

        The time is the whole run's (left out when not measured)."""
        parts = [
            f"{self.count(Action.CREATE)} created",
            f"{self.count(Action.UPDATE)} updated",
            counted(self.count(Action.NEW_REVISION), "new revision"),
            f"{self.count(Action.DELETE)} deleted",
        ]
        replaced = self.count(Action.REPLACE)
        if replaced:
            parts.append(f"{replaced} replaced")
        if self.moved:
            parts.append(f"{self.moved} moved")
        parts.append(f"{len(self.failed)} failed")
        not_started = self.not_started
        if not_started:
            parts.append(f"{not_started} not started")
        if self.mode == "destroy":
            parts = [parts[3], *parts[-2 if not_started else -1 :]]
        verb = "Destroy" if self.mode == "destroy" else "Apply"
        state = "interrupted" if self.interrupted else "complete"
        took = f" ({self.seconds:.1f}s)" if self.seconds else ""
        return f"{verb} {state}: {', '.join(parts)}{took}."
