"""`executable(plan)`: a plan without what only showing it needs, executed like the plan."""

from __future__ import annotations

import pytest

from planner.apply import Outcome
from planner.apply.executable import executable, executable_change
from planner.plan.model import Action, Plan
from planner.plan.recovery import update_intent_details
from planner.state.document import StateDocument
from tests.apply.conftest import Harness, docker, git

pytestmark = pytest.mark.anyio

SHOWN = {"patch", "before", "after", "notes"}


async def mixed_plan(harness: Harness) -> tuple[Plan, StateDocument]:
    """A plan with a create (with a secret), an update, a new revision, a delete and a
    replace, each against what an earlier apply made."""
    harness.environ["TOKEN"] = "s3cret-value"
    harness.configure(git("alpha"), docker("beta"), docker("gamma"), docker("delta"))
    assert (await harness.apply()).ok
    harness.configure(
        git("alpha", build_on_push=True),
        docker("beta", image="registry.example.com/app:2"),
        docker("delta"),
        docker("epsilon", extra='secrets = { TOKEN = { env = "TOKEN" } }\n'),
    )
    return await harness.plan(replace={"delta"})


async def test_an_executable_change_keeps_all_but_what_is_shown(harness: Harness) -> None:
    """Each change keeps every value the executor reads (an update's and a new
    revision's fields among them); its views, patch and notes, and the fields of the
    others, are left out."""
    plan, _ = await mixed_plan(harness)
    actions = {c.name: c.action for c in plan.changes}
    assert actions == {
        "alpha": Action.UPDATE,
        "beta": Action.NEW_REVISION,
        "delta": Action.REPLACE,
        "epsilon": Action.CREATE,
        "gamma": Action.DELETE,
    }
    for change in plan.changes:
        lean = executable_change(change)
        kept = change.__dict__.keys() - SHOWN - {"fields"}
        assert {k: lean.__dict__[k] for k in kept} == {k: change.__dict__[k] for k in kept}
        assert (lean.patch, lean.before, lean.after, lean.notes) == ([], {}, {}, [])
        assert change.patch or change.before or change.after  # there was something to drop
        journalled = change.action in (Action.UPDATE, Action.NEW_REVISION)
        assert lean.fields == (change.fields if journalled else [])
        assert change.fields or change.action is Action.REPLACE  # forced: no field moved
    lean_plan = executable(plan)
    assert [c.name for c in lean_plan.changes] == [c.name for c in plan.changes]
    assert lean_plan.model_dump(exclude={"changes"}) == plan.model_dump(exclude={"changes"})
    assert lean_plan.has_changes and lean_plan.summary == plan.summary


async def test_an_executable_plan_applies_as_the_plan(harness: Harness) -> None:
    """Executing the executable plan sends, journals and records what the plan says:
    the PATCHes journal the values they set, and the next plan changes nothing."""
    plan, doc = await mixed_plan(harness)
    planned = {c.name: update_intent_details(c) for c in plan.changes_with(Action.UPDATE)}
    result = await harness.execute(executable(plan), doc)
    assert result.ok
    assert {r.name: r.outcome for r in result.results} == {
        "alpha": Outcome.SUCCEEDED,
        "beta": Outcome.SUCCEEDED,
        "delta": Outcome.SUCCEEDED,
        "epsilon": Outcome.SUCCEEDED,
        "gamma": Outcome.SUCCEEDED,
    }
    journalled = {
        i.name: i.details for d in harness.backend.written for i in d.pending if i.op == "update"
    }
    assert journalled["alpha"] == planned["alpha"]
    assert journalled["alpha"]["fields"]
    state = harness.state()
    assert sorted(state.deployments) == ["alpha", "beta", "delta", "epsilon"]
    assert list(state.deployments["epsilon"].secret_digests) == ["TOKEN"]
    again, _ = await harness.plan()
    assert not again.has_changes
