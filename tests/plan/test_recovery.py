"""Recovery: what the state's journal explains is Recovered (typed), everything else drift."""

from __future__ import annotations

from planner.api.models import Deployment
from planner.plan import body as plan_body
from planner.plan.diff import make_plan
from planner.plan.model import Action, Plan, Recovered
from planner.plan.recovery import adopt_interrupted_creates, update_intent_details, with_recovered
from planner.state import StateDocument
from planner.state.document import IntentOp, PendingIntent

from .builders import KEY, apply_patch_body, edit, git_desired, observed_from, recorded_from

OLD = git_desired(secrets={"TOKEN": "old"})
NEW = git_desired(
    source_config={
        **OLD.source_config.model_dump(),
        "resource_spec": {"min_scale": 1, "max_scale": 5},
    },
    secrets={"TOKEN": "new"},
)


def killed_after_patch() -> tuple[Deployment, PendingIntent]:
    """The live deployment after a PATCH of OLD -> NEW whose answer was never recorded,
    and the update intent journalled before it was sent."""
    live = observed_from(OLD)
    plan = make_plan({"api": NEW}, {"api": recorded_from(OLD)}, {"api": live}, digest_key=KEY)
    (change,) = plan.changes
    assert change.action is Action.NEW_REVISION
    doc = StateDocument.new("embedded:x", None)
    intent = doc.add_intent(
        IntentOp.UPDATE, "api", deployment_id=live.id, details=update_intent_details(change)
    )
    patched = apply_patch_body(live, plan_body.planned_patch_body(change, NEW.secret_values()))
    return patched, intent


def replan(live: Deployment | None, intents: list[PendingIntent], desired: bool = True) -> Plan:
    wanted = {"api": NEW} if desired else {}
    return make_plan(
        wanted, {"api": recorded_from(OLD)}, {"api": live}, digest_key=KEY, intents=intents
    )


def test_unrecorded_patch_is_recovered_not_drift() -> None:
    """Values an interrupted PATCH set (secrets through their digests) are recovered."""
    live, intent = killed_after_patch()
    plan = replan(live, [intent])
    assert plan.drift == []
    assert plan.recovered == [
        Recovered(
            name="api",
            operation=IntentOp.UPDATE,
            deployment_id=live.id,
            paths=["secrets.TOKEN", "source_config.resource_spec.max_scale"],
        )
    ]
    assert [c.action for c in plan.changes] == [Action.NO_OP]


def test_a_later_outside_change_is_still_drift() -> None:
    """A value changed outside after the crash (not what the PATCH set) stays drift."""
    live, intent = killed_after_patch()
    live = edit(live, {"source_config": {"resource_spec": {"min_scale": 1, "max_scale": 7}}})
    plan = replan(live, [intent])
    assert [d.path for d in plan.drift] == ["source_config.resource_spec.max_scale"]
    assert [r.paths for r in plan.recovered] == [["secrets.TOKEN"]]


def test_without_a_journal_the_same_difference_is_drift() -> None:
    """With no intent, the same difference is drift, as before."""
    live, _ = killed_after_patch()
    plan = replan(live, [])
    assert plan.recovered == []
    assert [d.path for d in plan.drift] == [
        "secrets.TOKEN",
        "source_config.resource_spec.max_scale",
    ]


def test_unrecorded_delete_is_recovered_and_forgotten() -> None:
    """A deployment gone after a journalled delete is recovered, not deleted outside."""
    doc = StateDocument.new("embedded:x", None)
    intent = doc.add_intent(IntentOp.DELETE, "api", deployment_id=observed_from(OLD).id)
    plan = replan(None, [intent], desired=False)
    assert plan.drift == []
    assert [(r.name, r.operation) for r in plan.recovered] == [("api", IntentOp.DELETE)]
    (change,) = plan.changes
    assert change.action is Action.NO_OP and change.gone
    assert change.notes == ["deleted by an interrupted apply: it will be forgotten from the state"]


def test_deleted_outside_is_drift_and_marked_gone() -> None:
    """Without a delete intent a gone deployment is drift; `gone` says so as data."""
    plan = replan(None, [], desired=False)
    assert [(d.name, d.path) for d in plan.drift] == [("api", None)]
    assert plan.recovered == []
    assert plan.changes[0].gone


def test_an_interrupted_replace_is_attributed_to_the_run_not_outside() -> None:
    """Old deployment gone under a journalled delete, a namesake live: the plan blames the
    interrupted replace, never "outside the planner", and says how to adopt it."""
    doc = StateDocument.new("embedded:x", None)
    intent = doc.add_intent(IntentOp.DELETE, "api", deployment_id=observed_from(OLD).id)
    new_id = "00000000-0000-4000-8000-00000000beef"
    plan = make_plan(
        {"api": NEW},
        {"api": recorded_from(OLD)},
        {"api": None},
        digest_key=KEY,
        intents=[intent],
        unmanaged_existing={"api": new_id},
    )
    assert plan.drift == []
    assert [(r.name, r.operation) for r in plan.recovered] == [("api", IntentOp.DELETE)]
    (error,) = plan.errors
    assert "interrupted apply" in error.message and new_id in error.message
    assert "outside the planner" not in error.message
    assert error.hint is not None and f"planner import api {new_id}" in error.hint


def test_interrupted_creates_are_adopted_once_and_listed() -> None:
    """A journalled create found live is recorded with its observed values (one that left
    the config with ids only, so the plan deletes it), every create intent is dropped, and
    both are listed as recovered creates."""
    api, gone = git_desired("api"), git_desired("gone")
    live_api, live_gone = observed_from(api), observed_from(gone)
    doc = StateDocument.new("embedded:x", None)
    for name in ("api", "gone", "never-sent"):
        doc.add_intent(IntentOp.CREATE, name)
    found = {"api": live_api, "gone": live_gone}
    adopted = adopt_interrupted_creates(doc, found, {"api": api}, KEY)
    assert [(r.name, r.operation, r.deployment_id) for r in adopted] == [
        ("api", IntentOp.CREATE, live_api.id),
        ("gone", IntentOp.CREATE, live_gone.id),
    ]
    assert doc.pending == [] and doc.deployments["gone"].managed == {}
    assert doc.deployments["api"].managed == recorded_from(api).managed
    plan = make_plan({"api": api}, doc.deployments, found, digest_key=KEY)
    assert {c.name: c.action for c in plan.changes}["gone"] is Action.DELETE
    assert [r.name for r in with_recovered(plan, adopted).recovered] == ["api", "gone"]
