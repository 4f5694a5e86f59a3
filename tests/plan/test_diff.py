"""Scenarios of make_plan: one per action, per error and per drift case."""

from __future__ import annotations

from typing import Any

import pytest

from planner.errors import PlanError
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Action, Change, Plan
from planner.render.summary import plan_summary

from .builders import (
    INTEGRATION,
    KEY,
    deployment_id,
    edit,
    git_desired,
    observed_from,
    recorded_from,
    with_lifecycle,
)

SPEC = "source_config.resource_spec"


def source_config(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "integration_id": INTEGRATION,
        "repo_url": f"https://git.example.com/acme/{name}",
        "build_on_push": False,
        "resource_spec": {"min_scale": 1, "max_scale": 3},
        **extra,
    }


def plan_one(desired, recorded=None, observed=None, **kwargs: Any) -> Plan:
    """Plan a single deployment named `api` given the three sides (None: absent)."""
    return make_plan(
        {"api": desired} if desired is not None else {},
        {"api": recorded} if recorded is not None else {},
        {"api": observed} if recorded is not None else {},
        digest_key=KEY,
        **kwargs,
    )


def only_change(plan: Plan) -> Change:
    assert len(plan.changes) == 1
    return plan.changes[0]


def paths(change: Change) -> list[str]:
    return [field.path for field in change.fields]


def test_a_deployment_only_in_the_config_is_created() -> None:
    """A name in the config and not in the state plans a create with every set field."""
    plan = plan_one(git_desired())
    change = only_change(plan)
    assert change.action is Action.CREATE
    assert change.deployment_id is None
    assert f"{SPEC}.max_scale" in paths(change)
    assert plan.summary.create == 1
    assert plan_summary(plan) == (
        "Plan: 1 to create, 0 to update in place, 0 new revisions, 0 to delete."
    )


def test_an_in_place_field_plans_an_update() -> None:
    """Changing build_on_push only is an in-place update, with the field's class."""
    before = git_desired()
    after = git_desired(source_config=source_config("api", build_on_push=True))
    change = only_change(plan_one(after, recorded_from(before), observed_from(before)))
    assert change.action is Action.UPDATE
    assert [(f.path, f.change_class.value, f.before, f.after) for f in change.fields] == [
        ("source_config.build_on_push", "in-place", False, True)
    ]
    assert change.request_body == {"source_config": {"build_on_push": True}}


def test_a_new_revision_field_plans_a_new_revision() -> None:
    """A resource_spec change (even with an in-place one) is one new_revision change."""
    before = git_desired()
    spec = {"min_scale": 1, "max_scale": 5}
    after = git_desired(source_config=source_config("api", build_on_push=True, resource_spec=spec))
    change = only_change(plan_one(after, recorded_from(before), observed_from(before)))
    assert change.action is Action.NEW_REVISION
    assert paths(change) == ["source_config.build_on_push", f"{SPEC}.max_scale"]


def test_a_deployment_gone_from_the_config_is_deleted() -> None:
    """A name in the state and not in the config plans a delete of that id."""
    before = git_desired()
    change = only_change(plan_one(None, recorded_from(before), observed_from(before)))
    assert change.action is Action.DELETE
    assert change.deployment_id == deployment_id("api")
    assert all(field.after is None for field in change.fields)


def test_deletions_only_touch_deployments_in_the_state() -> None:
    """A live deployment the state does not know is never deleted."""
    stranger = observed_from(git_desired("stranger"))
    plan = make_plan({}, {}, {"stranger": stranger}, digest_key=KEY)
    assert plan.changes == []


def test_replace_deletes_and_creates_when_asked() -> None:
    """--replace NAME plans a replace carrying the old id and the create body."""
    desired = git_desired()
    options = PlanOptions(replace=frozenset({"api"}))
    plan = plan_one(desired, recorded_from(desired), observed_from(desired), options=options)
    change = only_change(plan)
    assert change.action is Action.REPLACE
    assert change.deployment_id == deployment_id("api")
    assert change.request_body["name"] == "api"
    assert plan_summary(plan).endswith(", 0 to delete, 1 to replace.")


def test_an_unchanged_deployment_is_a_no_op() -> None:
    """Desired equal to observed plans nothing and says so."""
    desired = git_desired()
    plan = plan_one(desired, recorded_from(desired), observed_from(desired))
    assert only_change(plan).action is Action.NO_OP
    assert not plan.has_changes
    assert plan_summary(plan) == "No changes. The deployments match the configuration."


def test_server_defaults_make_no_diff() -> None:
    """Fields the config does not set (server defaults such as deployment_type) are unmanaged."""
    desired = git_desired()
    live = observed_from(desired, deployment_type="prod", custom_url="https://x.example.com")
    spec = live.source_config.resource_spec
    assert spec is not None
    live = edit(live, {"source_config": {"resource_spec": {**spec.model_dump(), "cpu": 0.5}}})
    plan = plan_one(desired, recorded_from(desired), live)
    assert only_change(plan).action is Action.NO_OP
    assert plan.drift == []


def test_a_field_the_config_stopped_setting_is_released_not_cleared() -> None:
    """Three-way: a field recorded but no longer desired makes no change, only a note."""
    before = git_desired(source_config=source_config("api", custom_url="https://a.example.com"))
    after = git_desired()
    plan = plan_one(after, recorded_from(before), observed_from(before))
    change = only_change(plan)
    assert change.action is Action.NO_OP
    assert change.notes == [
        "source_config.custom_url is no longer set by the config: released, left as it is"
    ]


def test_an_immutable_change_is_an_error_naming_the_way_out() -> None:
    """Changing repo_url is an error with the field, both values and --replace NAME."""
    before = git_desired()
    after = git_desired(source_config=source_config("api", repo_url="https://other.example.com"))
    plan = plan_one(after, recorded_from(before), observed_from(before))
    [error] = plan.errors
    assert error.path == "source_config.repo_url"
    assert '"https://git.example.com/acme/api" → "https://other.example.com"' in error.message
    assert error.hint is not None and "--replace api" in error.hint
    assert "source_config.repo_url" not in str(only_change(plan).request_body)


def test_a_protected_deployment_cannot_be_replaced() -> None:
    """--replace on a deployment with lifecycle.protect is an error."""
    desired = with_lifecycle(git_desired(), protect=True)
    options = PlanOptions(replace=frozenset({"api"}))
    plan = plan_one(desired, recorded_from(desired), observed_from(desired), options=options)
    [error] = plan.errors
    assert "protected" in error.message and "replaced" in error.message


def test_destroy_deletes_everything_in_the_state_and_refuses_protected_ones() -> None:
    """--destroy plans a delete per recorded deployment; protected ones are errors."""
    keep = with_lifecycle(git_desired("keep"), protect=True)
    drop, fresh = git_desired("drop"), git_desired("fresh")
    plan = make_plan(
        {"keep": keep, "drop": drop, "fresh": fresh},
        {"keep": recorded_from(keep), "drop": recorded_from(drop)},
        {"keep": observed_from(keep), "drop": observed_from(drop)},
        options=PlanOptions(destroy=True),
        digest_key=KEY,
    )
    assert [(c.name, c.action) for c in plan.changes] == [
        ("drop", Action.DELETE),
        ("keep", Action.DELETE),
    ]
    assert [e.name for e in plan.errors] == ["keep"]
    assert plan.mode == "destroy"


def test_a_name_that_exists_remotely_but_not_in_the_state_is_an_import_error() -> None:
    """The error gives the exact `planner import NAME ID` once (in the hint), repeating
    the options the user gave, and nothing is created."""
    options = PlanOptions(command_args=("-c", "my config.toml"))
    unmanaged = {"api": deployment_id("api")}
    plan = make_plan(
        {"api": git_desired()},
        {},
        {},
        options=options,
        digest_key=KEY,
        unmanaged_existing=unmanaged,
    )
    [error] = plan.errors
    command = f"planner import -c 'my config.toml' api {deployment_id('api')}"
    assert error.hint is not None and error.hint.startswith(f"`{command}` adopts it")
    assert "planner import" not in error.message
    assert plan.changes == []


def test_drift_is_reported_and_planned_back_to_the_config() -> None:
    """A managed field changed outside the planner is drift and an update back."""
    desired = git_desired()
    live = edit(observed_from(desired), {"source_config": {"build_on_push": True}})
    plan = plan_one(desired, recorded_from(desired), live)
    [drift] = plan.drift
    assert (drift.path, drift.recorded, drift.observed) == (
        "source_config.build_on_push",
        False,
        True,
    )
    [field] = only_change(plan).fields
    assert (field.before, field.after) == (True, False)
    assert "changed outside the planner" in field.reason


def test_a_deployment_deleted_outside_is_created_again() -> None:
    """A recorded deployment observed as gone is drift and a create."""
    desired = git_desired()
    plan = plan_one(desired, recorded_from(desired), None)
    assert [(d.name, d.path, d.observed) for d in plan.drift] == [("api", None, None)]
    change = only_change(plan)
    assert change.action is Action.CREATE
    assert "deleted outside the planner" in change.notes[0]


def test_a_deployment_deleted_outside_and_from_the_config_is_only_forgotten() -> None:
    """Gone from both the server and the config: no request, a note, drift."""
    recorded = recorded_from(git_desired())
    plan = plan_one(None, recorded, None)
    change = only_change(plan)
    assert change.action is Action.NO_OP
    assert "forgotten from the state" in change.notes[0]
    assert len(plan.drift) == 1


def test_ignore_changes_leaves_a_path_alone_for_drift_and_config() -> None:
    """A path under ignore_changes is neither drift nor change, whoever moved it."""
    ignore = (f"{SPEC}.max_scale",)
    before = with_lifecycle(git_desired(), ignore_changes=ignore)
    spec = {"min_scale": 1, "max_scale": 9}
    after = with_lifecycle(
        git_desired(source_config=source_config("api", resource_spec=spec)), ignore_changes=ignore
    )
    live = edit(
        observed_from(before),
        {"source_config": {"resource_spec": {"min_scale": 1, "max_scale": 7}}},
    )
    plan = plan_one(after, recorded_from(before), live)
    assert plan.drift == []
    assert only_change(plan).action is Action.NO_OP


def test_only_and_exclude_select_deployments() -> None:
    """--only keeps the named deployments, --exclude drops them."""
    desired = {name: git_desired(name) for name in ("a", "b", "c")}
    only = make_plan(desired, {}, {}, options=PlanOptions(only=frozenset({"a"})), digest_key=KEY)
    assert [c.name for c in only.changes] == ["a"]
    excluded = make_plan(
        desired, {}, {}, options=PlanOptions(exclude=frozenset({"a"})), digest_key=KEY
    )
    assert [c.name for c in excluded.changes] == ["b", "c"]


@pytest.mark.parametrize("field", ["only", "exclude", "replace"])
def test_an_unknown_option_name_is_an_error_not_a_warning(field: str) -> None:
    """A name given to --only/--exclude/--replace that the plan does not know raises a
    PlanError naming the flag and the name (one check, whoever makes the plan)."""
    desired = {name: git_desired(name) for name in ("a", "b")}
    names: dict[str, Any] = {field: frozenset({"a", "zz"})}
    options = PlanOptions(**names)
    with pytest.raises(PlanError) as raised:
        make_plan(desired, {}, {}, options=options, digest_key=KEY)
    assert any(f"--{field} zz" in line for line in raised.value.details)
    assert raised.value.hint == "known deployments: a, b"


def test_refresh_only_plans_no_change_but_reports_drift() -> None:
    """--refresh-only: drift only, and the summary says what will be recorded."""
    desired = git_desired()
    changed = git_desired(source_config=source_config("api", build_on_push=True))
    live = edit(
        observed_from(desired), {"source_config": {"custom_url": None, "build_on_push": True}}
    )
    plan = plan_one(changed, recorded_from(desired), live, options=PlanOptions(refresh_only=True))
    assert plan.changes == []
    assert [d.path for d in plan.drift] == ["source_config.build_on_push"]
    assert plan_summary(plan) == "No changes. 1 drifted value to record."


def test_secrets_are_compared_by_value_and_reported_by_name() -> None:
    """Added, removed and changed secrets are fields masked as (sensitive)."""
    before = git_desired(secrets={"KEEP": "same", "OLD": "gone", "ROT": "v1"})
    after = git_desired(secrets={"KEEP": "same", "NEW": "hi", "ROT": "v2"})
    change = only_change(plan_one(after, recorded_from(before), observed_from(before)))
    assert change.action is Action.NEW_REVISION
    assert [(f.path, f.before, f.after) for f in change.fields] == [
        ("secrets.NEW", None, "(sensitive)"),
        ("secrets.OLD", "(sensitive)", None),
        ("secrets.ROT", "(sensitive)", "(sensitive)"),
    ]
    assert change.send_secrets
    assert sorted(change.secret_digests) == ["KEEP", "NEW", "ROT"]


def test_secret_drift_is_detected_through_digests() -> None:
    """A secret value changed outside shows as drift without its value."""
    desired = git_desired(secrets={"TOKEN": "right"})
    live = edit(observed_from(desired), {"secrets": [{"name": "TOKEN", "value": "wrong"}]})
    plan = plan_one(desired, recorded_from(desired), live)
    assert [(d.path, d.recorded, d.observed) for d in plan.drift] == [
        ("secrets.TOKEN", "(sensitive)", "(sensitive)")
    ]
    assert only_change(plan).action is Action.NEW_REVISION


def test_secret_values_never_appear_in_the_plan() -> None:
    """No rendering of the Plan value holds a secret value, only digests and masks."""
    before = git_desired(secrets={"TOKEN": "super-secret-1"})
    after = git_desired(secrets={"TOKEN": "super-secret-2", "NEW": "super-secret-3"})
    live = edit(observed_from(before), {"secrets": [{"name": "TOKEN", "value": "super-secret-4"}]})
    plan = plan_one(after, recorded_from(before), live)
    dumped = plan.model_dump_json() + repr(plan) + str(plan)
    assert "super-secret" not in dumped
    assert plan.has_changes


def test_plans_are_the_same_whatever_the_mapping_order() -> None:
    """The same inputs in another order give an equal plan."""
    desired = {name: git_desired(name) for name in ("b", "a", "c")}
    recorded = {name: recorded_from(git_desired(name)) for name in ("d", "c")}
    observed = {name: observed_from(git_desired(name)) for name in ("c", "d")}
    first = make_plan(desired, recorded, observed, digest_key=KEY)
    second = make_plan(
        dict(reversed(desired.items())), dict(reversed(recorded.items())), observed, digest_key=KEY
    )
    assert first == second
    assert [c.name for c in first.changes] == ["a", "b", "c", "d"]


def test_refresh_only_without_drift_says_nothing_moved() -> None:
    """--refresh-only with nothing changed outside plans nothing and says so."""
    desired = git_desired()
    live = observed_from(desired)
    plan = plan_one(desired, recorded_from(desired), live, options=PlanOptions(refresh_only=True))
    assert (plan.changes, plan.drift) == ([], [])
    assert plan_summary(plan) == "No changes. Nothing changed outside the planner."


def test_options_accept_plain_collections() -> None:
    """Names given as lists (as argparse gives them) work like sets."""
    options = PlanOptions(only=["a"], exclude=("b",), replace={"c"})  # type: ignore[arg-type]
    assert options.only == frozenset({"a"}) and isinstance(options.exclude, frozenset)
