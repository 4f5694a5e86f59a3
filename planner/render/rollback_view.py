"""What `planner rollback` and `planner release` show.

Rollback, `--format text`: the rollback about to be made (the revision running now, the
one it redeploys, the revision-level values that change, the hold it leaves), then
apply's progress while its revision rolls out (`planner.render.progress`, opening with
what the rollback does: `Rolling back api to revision <id>`), then what it did and the
hold. `--format json`: stdout carries one JSON document at the end
(`planner.apply.rollback_report`); the rollback about to be made goes to stderr.
Suggested commands repeat the `-c`, `--env` and `--state` the run was given.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from planner.apply.reporter import NullReporter, Reporter
from planner.apply.results import Outcome
from planner.command_lines import suggested_command
from planner.render.console import make_console
from planner.render.output import write_json, write_lines
from planner.render.progress import make_reporter
from planner.state.records import Hold, RecordedDeployment

if TYPE_CHECKING:  # `planner release` shows its lines without the rollback's engine
    from planner.apply.release import Released
    from planner.apply.rollback import RollbackOutcome
    from planner.plan.rollback import RevisionSummary, RollbackPlan


def plan_lines(plan: RollbackPlan, args: Sequence[str]) -> list[str]:
    """The rollback about to be made."""
    lines = [f"Rollback of {plan.name} (deployment {plan.deployment_id}):"]
    lines.append(f"  runs now:   {_revision(plan.active)}")
    lines.append(f"  redeploys:  {_revision(plan.target)}")
    if plan.forward:
        lines.append(
            "  this goes forward: the target is newer than the revision the active one "
            "repeats (`--to` allows it; a rollback without `--to` never does)"
        )
    lines += change_lines(plan)
    release = suggested_command("release", plan.name, command_args=args)
    lines.append(
        f"  then held at revision {plan.target.id}: plans and applies leave it alone "
        f"until `{release}`"
    )
    if plan.held is not None:
        lines.append(f"  (it replaces the hold at revision {plan.held.revision_id})")
    return lines


def rolling_back_title(plan: RollbackPlan) -> str:
    """The first progress line of a rollback."""
    return f"Rolling back {plan.name} to revision {plan.target.id}"


def finishing_title(recorded: RecordedDeployment) -> str:
    """The first progress line of a rollback run again on a deployment already held."""
    held = recorded.held
    where = f" to revision {held.revision_id}" if held is not None else ""
    return f"Finishing the rollback of {recorded.name}{where}"


def change_lines(plan: RollbackPlan) -> list[str]:
    if not plan.changes:
        return ["  changes: none in what a revision carries (source, source_revision_config)"]
    lines = ["  changes (what a revision carries, now -> after the rollback):"]
    for change in plan.changes:
        lines.append(f"    ~ {change.path}: {_value(change.before)} -> {_value(change.after)}")
    return lines


def result_lines(outcome: RollbackOutcome, args: Sequence[str]) -> list[str]:
    """What the rollback did, its hold, and what it recovered."""
    lines = [
        f"Recovered an interrupted rollback of {r.name}: its hold is recorded"
        for r in outcome.recovered
    ]
    lines.append(_done_line(outcome, args))
    if outcome.deployment.error and outcome.deployment.outcome is Outcome.FAILED:
        lines.append(f"  {outcome.deployment.error}")
    if outcome.hold is not None:
        lines.append(hold_line(outcome.name, outcome.hold, args))
    return lines


def _done_line(outcome: RollbackOutcome, args: Sequence[str]) -> str:
    done, name = outcome.deployment, outcome.name
    revision = f"revision {done.revision_id}"
    again = suggested_command("rollback", name, command_args=args)
    if done.outcome is Outcome.NOT_STARTED:
        return f"Rollback of {name} stopped before anything was sent."
    if done.outcome is Outcome.FAILED and done.status == Outcome.FAILED.value:
        return f"Rollback of {name} did not complete:"
    if done.outcome is Outcome.FAILED:
        return f"Rollback of {name} failed: {revision} ended {done.status}."
    if done.outcome is Outcome.SUBMITTED:
        return (
            f"Rollback of {name} submitted: {revision} is {done.status}, not waited for "
            f"(`{again}` waits for it)."
        )
    if outcome.plan is None:
        return f"{name} was already rolled back: {revision} is {done.status}."
    return f"Rollback of {name} complete: {revision} is {done.status} ({done.seconds:.1f}s)."


def hold_line(name: str, hold: Hold, args: Sequence[str]) -> str:
    release = suggested_command("release", name, command_args=args)
    return (
        f"{name} is held at revision {hold.revision_id} (since {hold.since}, by {hold.by}): "
        f"plans and applies leave it alone until `{release}`."
    )


def release_lines(done: Released) -> list[str]:
    """What `planner release NAME` did."""
    name, hold = done.name, done.hold
    lines = []
    if hold is not None:
        lines.append(
            f"Released {name}: it was held at revision {hold.revision_id} (since "
            f"{hold.since}, by {hold.by}); the next plan shows the config's changes to it again."
        )
    if done.dropped:
        lines.append(f"Released {name}: the interrupted rollback journalled for it is dropped.")
    return lines


class RollbackView:
    """Where a rollback's output goes, in one format (text or json)."""

    def __init__(self, output_format: str, args: Sequence[str]) -> None:
        self.json = output_format == "json"
        self.args = args
        self.console = make_console(stderr=self.json)

    def show_plan(self, plan: RollbackPlan) -> None:
        write_lines(self.console, plan_lines(plan, self.args))

    def reporter(self, title: str) -> Reporter:
        """The rollout's progress, opening with TITLE (what the rollback does)."""
        if self.json:
            return NullReporter()
        return make_reporter(self.console, live=self.console.is_terminal, title=title)

    def stopping(self, signum: int) -> None:
        from planner.render.apply_view import stopping_message

        write_lines(self.console, [stopping_message(signum)])

    def finished(self, outcome: RollbackOutcome, exit_code: int) -> None:
        if self.json:
            from planner.apply.rollback_report import report_of

            report = report_of(outcome, exit_code).model_dump(mode="json")
            write_json(make_console(), report)
            return
        sys.stdout.write("\n")
        write_lines(self.console, result_lines(outcome, self.args))


def _revision(revision: RevisionSummary | None) -> str:
    if revision is None:
        return "no active revision"
    return f"revision {revision.id} ({revision.status}, created {revision.created_at})"


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
