"""One reconcile cycle: plan the config against the state and the live workspace, then
(in `heal` mode) apply, with the engine `plan` and `apply` use.

- The plan is `Workspace.make_plan` (`planner.plan.engine.plan_state`); a heal executes
  it with `Workspace.execute` (`planner.apply.execute_plan`), under the state lock, with
  the leadership checked before every request.
- Without `prune`, deletions (and replaces, which delete) are held back: the engine plans
  again with them excluded (`--exclude`), so nothing is deleted and nothing recorded for them.
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
from planner.reconcile.status import DeploymentRow
from planner.state.backend import StateBackend
from planner.state.document import IntentOp, StateDocument
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle

HELD_ACTIONS = (Action.DELETE, Action.REPLACE)


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
    held: list[str] = field(default_factory=list)
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
        return sorted({*self.held, *(name for name in self.pending if name not in changed)})


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
        plan, observed, held = await self.plan(ws, ws.read_state())
        found = judged(plan, held, self.settings)
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
        held = [] if self.settings.prune else [c.name for c in plan.changes_with(*HELD_ACTIONS)]
        if held and not plan.has_errors:
            narrowed = PlanOptions(exclude=frozenset(held), command_args=base.command_args)
            plan, observed = await ws.make_plan(narrowed, doc)
        return plan, observed, held

    async def heal(self, ws: CycleWorkspace) -> Outcome:
        """Lock, plan again, apply: the cycle's outcome."""
        settings = self.settings
        with ws.lock("reconcile", settings.lock_timeout, settings.lock_lease):
            state_guard = ws.client.guard
            ws.client.guard = lambda: guard_both(self.leadership, state_guard)
            doc = ws.read_state()
            plan, observed, held = await self.plan(ws, doc)
            found = judged(plan, held, settings)
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


def judged(plan: Plan, held: list[str], settings: Settings) -> Outcome:
    """What PLAN means for the cycle, before anything is applied."""
    drifted = sorted({d.name for d in plan.drift})
    pending = changing(plan)
    found = Outcome("ok", "", drifted=drifted, pending=pending, held=held, plan=plan)
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
    elif pending or held:
        found.result = "drift"
        found.message = f"{len(pending)} to change" + held_note(held)
    else:
        found.message = "in sync"
    return found


def held_note(held: list[str]) -> str:
    return f", {len(held)} deletion(s) held back (no --prune)" if held else ""


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
        found.result = "drift" if found.left else "healed"
        found.message = f"stopped: {len(found.changed)} healed before the stop"
    else:
        # deletions held back are changes left: not every deployment converged
        found.result = "drift" if found.held else "healed"
        found.message = f"{len(found.changed)} healed" + held_note(found.held)
    return found


def deployment_rows(plan: Plan, observed: Observed, config: Config) -> list[DeploymentRow]:
    """Every deployment of PLAN as the status page lists it (no value, only names)."""
    drifted = {d.name for d in plan.drift}
    rows = []
    for change in sorted(plan.changes, key=lambda c: c.name):
        desired = config.deployments.get(change.name)
        rows.append(
            DeploymentRow(
                address=change.name,
                remote_name=desired.api_name if desired is not None else change.name,
                health=health_of(change.name, observed.health, observed.by_name),
                drifted=change.name in drifted,
                last_change=None,
                last_change_at=None,
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
