"""`planner apply PLANFILE`: execute exactly a plan saved by `planner plan --out`, without
asking, unless it is stale (the run itself is `planner.cli.run.apply.run_apply`).

The seal is checked before anything is read or sent (`planner.cli.saved_target`); in the
state lock, the plan is refused when the state, the live deployments, the config or the
variables moved since it was made, and its policies are checked again.
"""

from __future__ import annotations

import asyncio
import os
from functools import partial

from planner.cli.options import RunOptions, WorkspaceOptions
from planner.cli.run.apply import run_apply
from planner.cli.saved_target import load_sealed_plan
from planner.cli.workspace import Workspace
from planner.plan.model import Plan
from planner.plan.recovery import adopt_interrupted_creates
from planner.plan.saved import SavedPlan
from planner.plan.stale import check_plan_fresh
from planner.state.document import StateDocument


def run_saved(planfile: str, workspace: WorkspaceOptions, options: RunOptions) -> int:
    """Apply the plan saved at PLANFILE to the target it was made for; the exit code."""
    sealed = load_sealed_plan(planfile, workspace, os.environ)
    check = partial(checked_saved_plan, sealed.saved)
    return asyncio.run(run_apply(sealed.target, options, check, operation="apply"))


async def checked_saved_plan(saved: SavedPlan, ws: Workspace, doc: StateDocument) -> Plan:
    """SAVED's plan, refused when stale; what an interrupted apply created is adopted
    (the plan lists it as recovered already: it was made on the same state)."""
    observed = await ws.refresh(doc, set(ws.config.deployments) - set(doc.deployments))
    key = ws.digest_key(doc)
    given = ws.config.given_variables
    check_plan_fresh(saved, doc, observed, ws.config.deployments, key, variables=given)
    ws.recheck_policies(saved.plan, doc, observed)
    if adopt_interrupted_creates(doc, observed.pending_found, ws.config.deployments, key):
        ws.backend.write(doc)
    return saved.plan
