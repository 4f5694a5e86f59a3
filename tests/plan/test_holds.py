"""Held deployments in the plan: listed with what the config would change, never planned;
what would delete, destroy, replace or move one is an error naming `planner release`."""

from __future__ import annotations

from typing import Any

from planner.config.models import Policy
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Action, Plan
from planner.plan.policies import check_plan_policies, compile_policies
from planner.plan.update import build_update
from planner.secrets import SENSITIVE
from tests.plan.builders import (
    HELD_REVISION,
    HOLD,
    KEY,
    git_desired,
    held,
    held_inputs,
    held_plan,
    observed_from,
    recorded_from,
)


def plan_of(inputs: dict[str, Any], **options: Any) -> Plan:
    return make_plan(
        inputs["desired"],
        inputs["recorded"],
        inputs["observed"],
        options=PlanOptions(**options),
        digest_key=KEY,
    )


def test_a_held_deployment_is_listed_with_the_changes_its_config_would_make() -> None:
    """A held deployment has no change in the plan; its entry holds the hold and exactly the
    field changes an unheld plan would make of it, in the plan's shape for a change's fields."""
    inputs = held_inputs()
    plan = plan_of(inputs)
    assert [c.name for c in plan.changes] == ["worker"]
    entry = {h.address: h for h in plan.held}["support-agent"]
    assert (entry.revision, entry.since, entry.by) == (HELD_REVISION, HOLD.since, HOLD.by)
    unheld = build_update(
        inputs["desired"]["support-agent"],
        inputs["recorded"]["support-agent"],
        inputs["observed"]["support-agent"],
        key=KEY,
        drifted=(),
    ).change
    assert unheld.action is Action.NEW_REVISION and entry.changes == unheld.fields
    assert {h.address: h.changes for h in plan.held}["batch"] == []
    assert entry.release_command == "planner release support-agent"
    assert plan.summary.held == 2 and plan.summary.update == 1


def test_a_plan_with_only_held_changes_has_nothing_to_apply() -> None:
    """Only a held deployment differs from its config: the plan has no change to apply."""
    inputs = held_inputs()
    plan = plan_of(inputs, only=frozenset({"support-agent"}))
    assert not plan.has_changes and not plan.errors and len(plan.held) == 1


def test_a_held_deployment_drifts_only_by_changes_made_outside() -> None:
    """What the rollback redeployed is recorded (no drift); a change made on the server
    since is drift of the plan, and the held entry marks that field drifted, while still
    nothing is planned for it."""
    desired = git_desired("api")
    rolled_back = git_desired(
        "api", source_revision_config={"repo_ref": "v1", "agent_config_path": "agent.json"}
    )
    recorded = held(recorded_from(rolled_back))
    live = observed_from(rolled_back)
    plan = make_plan({"api": desired}, {"api": recorded}, {"api": live}, digest_key=KEY)
    assert plan.drift == [] and plan.changes == []
    assert [(f.path, f.drifted) for f in plan.held[0].changes] == [
        ("source_revision_config.repo_ref", False)
    ]
    edited_outside = observed_from(
        git_desired(
            "api", source_revision_config={"repo_ref": "hotfix", "agent_config_path": "agent.json"}
        )
    )
    drifted = make_plan(
        {"api": desired}, {"api": recorded}, {"api": edited_outside}, digest_key=KEY
    )
    assert [(d.path, d.recorded, d.observed) for d in drifted.drift] == [
        ("source_revision_config.repo_ref", "v1", "hotfix")
    ]
    assert drifted.changes == [] and drifted.errors == []
    assert [(f.path, f.before, f.drifted) for f in drifted.held[0].changes] == [
        ("source_revision_config.repo_ref", "hotfix", True)
    ]


def test_removing_or_destroying_a_held_deployment_hints_a_whole_sentence() -> None:
    """The hint of an error about a held deployment reads as a sentence: `run ...` alone,
    or the other way first then `or run ...`; the held entry of one the config no longer
    declares says it would be deleted."""
    inputs = held_inputs()
    (destroyed, _) = plan_of(inputs, destroy=True).errors
    assert (destroyed.hint or "").startswith("run `planner release batch` first")
    del inputs["desired"]["batch"]
    plan = plan_of(inputs)
    (removed,) = plan.errors
    assert (removed.hint or "").startswith("put [deployments.batch] back in the config, or run")
    entry = {h.address: h for h in plan.held}["batch"]
    assert entry.removed and not {h.address: h for h in plan.held}["support-agent"].removed


def test_no_held_key_when_nothing_is_held() -> None:
    """A plan without a held deployment has no `held` key and no `summary.held` in its JSON."""
    inputs = held_inputs()
    inputs["recorded"] = {
        n: r.model_copy(update={"held": None}) for n, r in inputs["recorded"].items()
    }
    document = plan_of(inputs).model_dump(mode="json")
    assert "held" not in document and "held" not in document["summary"]
    assert "held" in held_plan().model_dump(mode="json")


def test_removing_a_held_deployment_from_the_config_is_an_error() -> None:
    """A held deployment whose table left the config is not deleted: an error names it and
    `planner release NAME` with the options given."""
    inputs = held_inputs()
    del inputs["desired"]["batch"]
    plan = plan_of(inputs, command_args=("--env", "prod"))
    assert [c.name for c in plan.changes_with(Action.DELETE)] == []
    (error,) = plan.errors
    assert error.name == "batch" and "rolled back to revision" in error.message
    assert error.message.endswith("would be deleted")
    assert "`planner release --env prod batch`" in (error.hint or "")
    assert [h.address for h in plan.held] == ["batch", "support-agent"]


def test_destroying_or_replacing_a_held_deployment_is_an_error() -> None:
    """`--destroy` and `--replace NAME` of a held deployment are errors naming release."""
    destroy = plan_of(held_inputs(), destroy=True)
    assert sorted(e.name for e in destroy.errors) == ["batch", "support-agent"]
    assert all(e.message.endswith("would be destroyed") for e in destroy.errors)
    assert [c.name for c in destroy.changes] == ["worker"]
    replace = plan_of(held_inputs(), replace=frozenset({"batch"}))
    (error,) = replace.errors
    assert error.name == "batch" and "replaced" in error.message
    assert "planner release batch" in (error.hint or "")
    assert not replace.changes_with(Action.REPLACE)


def test_moving_a_held_deployment_is_one_error_naming_both_addresses() -> None:
    """A new address naming a held deployment's remote name is not a move: one error,
    naming both addresses and release; nothing planned under either address."""
    inputs = held_inputs()
    batch = inputs["desired"].pop("batch")
    inputs["desired"]["batch-v2"] = batch.model_copy(
        update={"name": "batch-v2", "remote_name": "batch"}
    )
    plan = plan_of(inputs)
    (error,) = plan.errors
    assert plan_of(inputs, only=frozenset({"batch-v2"})).errors == [error]
    assert error.name == "batch" and "moved to batch-v2" in error.message
    assert "[deployments.batch]" in (error.hint or "") and "planner release batch" in (
        error.hint or ""
    )
    assert [c.name for c in plan.changes] == ["worker"]
    assert "batch" in {h.address for h in plan.held}


def test_a_refresh_only_plan_lists_held_deployments_without_errors() -> None:
    """Refresh-only: held deployments are listed, never an error, never drift."""
    inputs = held_inputs()
    del inputs["desired"]["batch"]
    plan = plan_of(inputs, refresh_only=True)
    assert plan.errors == [] and plan.drift == [] and len(plan.held) == 2


def test_a_held_deployment_deleted_outside_is_a_warning_not_a_create() -> None:
    """A held deployment gone from the server: nothing planned, a warning naming release,
    its entry carries the fields a create would set."""
    inputs = held_inputs()
    inputs["observed"]["batch"] = None
    plan = plan_of(inputs)
    assert not plan.changes_with(Action.CREATE)
    assert any(w.name == "batch" and "planner release batch" in w.message for w in plan.warnings)
    entry = {h.address: h for h in plan.held}["batch"]
    assert "source" in {f.path for f in entry.changes}


def test_policies_never_see_a_held_deployment() -> None:
    """A policy denying every new revision passes a plan whose only new revision is held."""
    policy = Policy(
        name="no-new-revisions",
        expression='change.action != "new_revision"',
        message="no new revisions today",
    )
    compiled = compile_policies([policy], "planner.toml")
    inputs = held_inputs()
    plan = plan_of(inputs)
    checked = check_plan_policies(
        plan,
        compiled,
        desired=inputs["desired"],
        recorded=inputs["recorded"],
        observed=inputs["observed"],
        environment=None,
    )
    assert checked.errors == [] and checked.policies == []
    inputs["recorded"]["support-agent"] = inputs["recorded"]["support-agent"].model_copy(
        update={"held": None}
    )
    unheld = plan_of(inputs)
    denied = check_plan_policies(
        unheld,
        compiled,
        desired=inputs["desired"],
        recorded=inputs["recorded"],
        observed=inputs["observed"],
        environment=None,
    )
    assert [e.name for e in denied.errors] == ["support-agent"]  # the policy does bite


def test_a_held_deployments_would_be_secret_change_is_masked() -> None:
    """A secret the config would change on a held deployment shows as (sensitive): its
    value is nowhere in the plan's JSON."""
    old = git_desired("api", secrets={"TOKEN": "sk-held-old"})
    new = git_desired("api", secrets={"TOKEN": "sk-held-new"})
    plan = make_plan(
        {"api": new}, {"api": held(recorded_from(old))}, {"api": observed_from(old)}, digest_key=KEY
    )
    (field,) = plan.held[0].changes
    assert (field.path, field.before, field.after) == ("secrets.TOKEN", SENSITIVE, SENSITIVE)
    assert "sk-held" not in plan.model_dump_json()
