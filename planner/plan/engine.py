"""The one engine path of `plan`, `apply` and `import`: refresh, adopt what an interrupted
apply created, plan. `make_plan` stays pure; this is the I/O around it.

The caller (the CLI's `Workspace`) brings the client, the loaded config's deployments,
the state document (changed in memory only: adopted creates are recorded in it, and
apply, not plan, writes it) and the digest key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from planner.api.client import ControlPlaneClient
from planner.config.desired import DesiredDeployment
from planner.config.models import Policy
from planner.errors import PlanError
from planner.plan.diff import make_plan
from planner.plan.model import Plan, Recovered
from planner.plan.options import PlanOptions, check_not_emptied
from planner.plan.policies import check_plan_policies, compile_policies
from planner.plan.recovery import adopt_interrupted_creates, with_recovered
from planner.plan.redeploys import settle_interrupted_redeploys
from planner.plan.refresh import Observed, pending_create_names, refresh_observed
from planner.state.document import StateDocument

Desired = Mapping[str, DesiredDeployment]


async def refresh(
    client: ControlPlaneClient,
    doc: StateDocument,
    desired: Desired,
    names_to_create: Iterable[str],
    *,
    whole_workspace: bool = False,
) -> Observed:
    """Refresh DOC's deployments and look up NAMES_TO_CREATE (and the journalled creates);
    WHOLE_WORKSPACE: from one listing, which also finds the unmanaged deployments."""
    return await refresh_observed(
        client,
        doc.deployments,
        names_to_create,
        pending_creates=pending_create_names(doc),
        remote_names={name: d.api_name for name, d in desired.items()},
        whole_workspace=whole_workspace,
    )


async def adopt_interrupted(
    client: ControlPlaneClient, doc: StateDocument, desired: Desired, key: bytes
) -> list[Recovered]:
    """Adopt into DOC what an interrupted apply created and never recorded (import's way:
    one lookup of the journalled creates, nothing else refreshed)."""
    if not pending_create_names(doc):
        return []
    found = (await refresh(client, doc, desired, [])).pending_found
    return adopt_interrupted_creates(doc, found, desired, key)


async def plan_state(
    client: ControlPlaneClient,
    desired: Desired,
    doc: StateDocument,
    key: bytes,
    options: PlanOptions,
    *,
    whole_workspace: bool = False,
    managed_elsewhere: Mapping[str, str] | None = None,
    policies: Sequence[Policy] = (),
    environment: str | None = None,
    label: str = "config",
) -> tuple[Plan, Observed]:
    """Refresh, adopt into DOC the creates an interrupted apply never recorded (and the
    holds of interrupted rollbacks, `planner.plan.redeploys`), then plan
    DESIRED against DOC and what is live. The adopted creates, and whatever else the
    state's journal explains, are the plan's `recovered`, not drift. MANAGED_ELSEWHERE:
    the ids other states of the config record, by owning state. A config that declares
    no deployment while DOC manages some is refused first (`check_not_emptied`).
    POLICIES (of ENVIRONMENT, in the config LABEL) are evaluated for every deployment
    of the plan: a deny is an error of the plan (`planner.plan.policies`)."""
    check_not_emptied(desired, doc.deployments, options)
    compiled = compile_policies(policies, label)
    observed = await refresh(client, doc, desired, desired, whole_workspace=whole_workspace)
    adopted = adopt_interrupted_creates(doc, observed.pending_found, desired, key)
    adopted += await settle_interrupted_redeploys(client, doc)  # a rollback's, never recorded
    plan = make_plan(
        desired,
        dict(doc.deployments),
        {**observed.by_name, **observed.pending_found},
        options=options,
        digest_key=key,
        unmanaged_existing=observed.unmanaged_existing,
        intents=doc.pending,
        health=observed.health,
        unmanaged=observed.unmanaged,
        managed_elsewhere=managed_elsewhere,
    )
    live = {**observed.by_name, **observed.pending_found}
    plan = check_plan_policies(
        plan,
        compiled,
        desired=desired,
        recorded=doc.deployments,
        observed=live,
        environment=environment,
    )
    return with_recovered(plan, adopted), observed


def recheck_policies(
    plan: Plan,
    desired: Desired,
    doc: StateDocument,
    observed: Observed,
    *,
    policies: Sequence[Policy],
    environment: str | None,
    label: str,
) -> None:
    """Refuse a saved PLAN that a policy of the config now denies (apply checks it
    again before sending anything: the policies may have changed since the plan)."""
    compiled = compile_policies(policies, label)
    live = {**observed.by_name, **observed.pending_found}
    checked = check_plan_policies(
        plan.model_copy(update={"policies": [], "errors": []}),
        compiled,
        desired=desired,
        recorded=doc.deployments,
        observed=live,
        environment=environment,
    )
    if checked.errors:
        raise PlanError(
            "a policy of the config denies this saved plan: nothing was applied",
            details=[f"{error.name}: {error.message}" for error in checked.errors],
            hint="fix the config, then make a new plan with `planner plan --out`",
        )
