"""One reconcile cycle: plan the config against the state and the live workspace, then
(in `heal` mode) apply, with the engine `plan` and `apply` use.

- The plan is `Workspace.make_plan` (`planner.plan.engine.plan_state`); a heal executes
  it with `Workspace.execute` (`planner.apply.execute_plan`), under the state lock, with
  the leadership checked before every request.
- Without `prune`, deletions (and replaces, which delete) are held back: the engine plans
  again with them excluded (`--exclude`), so nothing is deleted and nothing recorded for them.
- A deployment a rollback holds (`planner rollback`) is never healed: the plan lists it
  apart (`Plan.held`) and plans nothing for it; the cycle reports it (`held`, its row on
  the status page) until `planner release`. Its drift (a change made outside the planner
  since the rollback) is reported all the same (`held_drifted`: the cycle's result is
  `drift`), never healed.
- A plan with errors is reported, never applied; more than `max_changes` deployments to
  change refuses the cycle (nothing applied); `detect` never locks or writes anything.
- A heal first plans without the lock (most cycles find nothing: no lock is taken, a
  person's `apply` is never in the way), then locks and plans again before applying.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Protocol

from planner.api.client import ControlPlaneClient
from planner.apply import ApplyOptions, ApplyResult
from planner.apply.reporter import Reporter
from planner.apply.results import Outcome as ApplyOutcome
from planner.config import Config
from planner.errors import PlanError, PlannerError
from planner.plan.health import RevisionHealth
from planner.plan.model import Action, Plan
from planner.plan.options import PlanOptions
from planner.plan.refresh import Observed
from planner.reconcile.events import CycleResult, Mode
from planner.reconcile.leader import Leadership
from planner.reconcile.status import DeploymentRow, HoldView
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, StateDocument
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle

HELD_BACK_ACTIONS = (Action.DELETE, Action.REPLACE)


class CycleWorkspace(Protocol):
    """What a cycle needs of the CLI's `Workspace` (the config, loaded this cycle)."""

    config: Config
    client: ControlPlaneClient
    backend: StateBackend

    def lock(self, operation: str, timeout: float = 0.0, lease: float = ...) -> LockHandle: ...

    def read_state(self) -> StateDocument: ...

    async def make_plan(
        self, options: PlanOptions, doc: StateDocument
    ) -> tuple[Plan, Observed]: ...

    async def execute(
        self,
        plan: Plan,
        doc: StateDocument,
        options: ApplyOptions,
        reporter: Reporter,
        stop: asyncio.Event,
    ) -> ApplyResult: ...


OpenWorkspace = Callable[[], AbstractAsyncContextManager[CycleWorkspace]]


@dataclass(frozen=True)
class Settings:
    """How the loop runs (`planner reconcile`'s options, parsed)."""

    mode: Mode = "heal"
    interval: float = 300.0
    prune: bool = False
    max_changes: int = 10
    once: bool = False
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    apply: ApplyOptions = field(default_factory=ApplyOptions)
    command_args: tuple[str, ...] = ()


@dataclass
class Outcome:
    """What one cycle found and did."""

    result: CycleResult
    message: str
    drifted: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)  # deletions, without --prune
    held: list[str] = field(default_factory=list)  # deployments a rollback holds: never healed
    failed: list[str] = field(default_factory=list)
    error: PlannerError | None = None
    plan: Plan | None = None
    rows: list[DeploymentRow] = field(default_factory=list)
    applied: ApplyResult | None = None

    @property
    def left(self) -> list[str]:
        """The changes still left after the cycle: the deletions held back, and what was
        to change and was not (all of it when nothing was applied)."""
        changed = set(self.changed)
        return sorted({*self.held_back, *(name for name in self.pending if name not in changed)})

    @property
    def held_drifted(self) -> list[str]:
        """The held deployments that drifted (reported, never healed)."""
        return sorted(set(self.drifted) & set(self.held))


class Applying(Protocol):
    """Where a heal's progress goes (the view)."""

    def reporter(self, plan: Plan) -> Reporter: ...

    def applied(self, result: ApplyResult) -> None: ...


@dataclass
class Cycle:
    """One cycle over a workspace opened for it."""

    settings: Settings
    leadership: Leadership
    view: Applying
    stop: asyncio.Event

    async def run(self, ws: CycleWorkspace) -> Outcome:
        plan, observed, held_back = await self.plan(ws, ws.read_state())
        found = judged(plan, held_back, self.settings)
        found.rows = deployment_rows(plan, observed, ws.config)
        if self.settings.mode == "detect" or found.result != "drift" or not found.pending:
            return found
        return await self.heal(ws)

    async def plan(
        self, ws: CycleWorkspace, doc: StateDocument
    ) -> tuple[Plan, Observed, list[str]]:
        """The plan of this cycle, deletions held back without `prune` (and their names)."""
        base = PlanOptions(command_args=self.settings.command_args)
        plan, observed = await ws.make_plan(base, doc)
        deleting = plan.changes_with(*HELD_BACK_ACTIONS)
        held_back = [] if self.settings.prune else [c.name for c in deleting]
        if held_back and not plan.has_errors:
            narrowed = PlanOptions(exclude=frozenset(held_back), command_args=base.command_args)
            plan, observed = await ws.make_plan(narrowed, doc)
        return plan, observed, held_back

    async def heal(self, ws: CycleWorkspace) -> Outcome:
        """Lock, plan again, apply: the cycle's outcome."""
        settings = self.settings
        with ws.lock("reconcile", settings.lock_timeout, settings.lock_lease):
            state_guard = ws.client.guard
            ws.client.guard = lambda: guard_both(self.leadership, state_guard)
            doc = ws.read_state()
            plan, observed, held_back = await self.plan(ws, doc)
            found = judged(plan, held_back, settings)
            found.rows = deployment_rows(plan, observed, ws.config)
            if found.result != "drift" or not found.pending:
                return found
            if any(r.operation == IntentOp.CREATE for r in plan.recovered):
                ws.backend.write(doc)  # the creates adopted from an interrupted apply
            reporter = self.view.reporter(plan)
            result = await ws.execute(plan, doc, settings.apply, reporter, self.stop)
        self.view.applied(result)
        return healed(found, result)


def guard_both(leadership: Leadership, state_guard: object) -> None:
    """Before every request of a heal: still the leader, and still holding the state lock."""
    leadership.check()
    if callable(state_guard):
        state_guard()


def changing(plan: Plan) -> list[str]:
    """The deployments PLAN changes (sends something for)."""
    return sorted({c.name for c in plan.changes if c.action is not Action.NO_OP})


def judged(plan: Plan, held_back: list[str], settings: Settings) -> Outcome:
    """What PLAN means for the cycle, before anything is applied (a held deployment is
    reported, never a change: it leaves the cycle `ok` when nothing else differs)."""
    drifted = sorted({d.name for d in plan.drift})
    pending = changing(plan)
    held = [entry.address for entry in plan.held]
    found = Outcome(
        "ok", "", drifted=drifted, pending=pending, held_back=held_back, held=held, plan=plan
    )
    if plan.has_errors:
        listed = [f"{e.name}: {e.message}" for e in plan.errors]
        found.result, found.error = (
            "error",
            PlanError("the plan has errors: nothing was applied", details=listed),
        )
        found.message = f"the plan has errors (nothing applied): {'; '.join(listed)}"
    elif len(pending) > settings.max_changes and settings.mode == "heal":
        found.result = "refused"
        found.message = (
            f"{len(pending)} deployments to change, more than --max-changes "
            f"{settings.max_changes}: nothing applied"
        )
    elif pending or held_back or found.held_drifted:
        found.result = "drift"
        found.message = f"{len(pending)} to change" + held_back_note(held_back)
        found.message += held_drift_note(found.held_drifted)
    else:
        found.message = "in sync"
    found.message += held_note(held)
    return found


def held_back_note(held_back: list[str]) -> str:
    return f", {len(held_back)} deletion(s) held back (no --prune)" if held_back else ""


def held_drift_note(names: list[str]) -> str:
    """`, 1 held deployment drifted outside the planner (api)`."""
    if not names:
        return ""
    return f", {len(names)} held deployment(s) drifted outside the planner ({', '.join(names)})"


def held_note(held: list[str]) -> str:
    """`; 1 held by a rollback, not healed (api)`: the deployments a rollback holds."""
    if not held:
        return ""
    return f"; {len(held)} held by a rollback, not healed ({', '.join(held)})"


def healed(found: Outcome, result: ApplyResult) -> Outcome:
    """FOUND once RESULT applied it."""
    found.applied = result
    found.changed = sorted(
        r.name for r in result.results if r.changed and r.outcome is ApplyOutcome.SUCCEEDED
    )
    found.failed = sorted(r.name for r in result.failed)
    if found.failed:
        found.result = "error"
        found.error = PlannerError(
            f"{len(found.failed)} deployment(s) failed to converge",
            details=[f"{r.name}: {r.error}" for r in result.failed],
        )
        found.message = f"{len(found.changed)} healed, {len(found.failed)} failed: " + "; ".join(
            found.error.details
        )
    elif result.interrupted:
        found.result = "drift" if found.left or found.held_drifted else "healed"
        found.message = f"stopped: {len(found.changed)} healed before the stop"
    else:
        # deletions held back are changes left: not every deployment converged
        left = found.held_back or found.held_drifted
        found.result = "drift" if left else "healed"
        found.message = f"{len(found.changed)} healed" + held_back_note(found.held_back)
        found.message += held_drift_note(found.held_drifted)
        found.message += held_note(found.held)
    return found


def deployment_rows(plan: Plan, observed: Observed, config: Config) -> list[DeploymentRow]:
    """Every deployment of PLAN as the status page lists it (no value, only names): its
    changes, and the deployments a rollback holds (with their hold)."""
    drifted = {d.name for d in plan.drift}
    holds = {entry.address: entry for entry in plan.held}
    rows = []
    for name in sorted({c.name for c in plan.changes} | set(holds)):
        desired = config.deployments.get(name)
        entry = holds.get(name)
        rows.append(
            DeploymentRow(
                address=name,
                remote_name=desired.api_name if desired is not None else name,
                health=health_of(name, observed.health, observed.by_name),
                drifted=name in drifted,
                last_change=None,
                last_change_at=None,
                hold=None if entry is None else HoldView.of(entry),
            )
        )
    return rows


def health_of(name: str, health: Mapping[str, RevisionHealth], live: Mapping[str, object]) -> str:
    """`healthy` (its latest revision is the active one), `rolling out (STATUS)`, `failed
    (STATUS)` (its latest revision ended without becoming active), or `missing`."""
    if name in health:
        latest = health[name]
        state = "rolling out" if latest.is_in_progress else "failed"
        return f"{state} ({latest.status})"
    return "missing" if live.get(name) is None else "healthy"
