"""`display_name`: managed in place, sent alone in a PATCH, never a revision, adopted."""

from __future__ import annotations

from planner.api.fields import ChangeClass, classify
from planner.plan.adopt import generated_config
from planner.plan.body import create_request_body
from planner.plan.model import Action

from .builders import apply_plan, git_desired, observed_from, recorded_from
from .test_diff import only_change, plan_one


def test_display_name_is_an_in_place_field() -> None:
    """The field table classes display_name in place, for planner and server alike."""
    assert classify("display_name") is ChangeClass.IN_PLACE


def test_a_changed_display_name_is_one_in_place_update_sending_it_alone() -> None:
    """A new display_name plans an update (no revision) whose PATCH carries only it."""
    before = git_desired(display_name="Support")
    after = git_desired(display_name="Support agent")
    change = only_change(plan_one(after, recorded_from(before), observed_from(before)))
    assert change.action is Action.UPDATE
    assert [(f.path, f.change_class, f.before, f.after) for f in change.fields] == [
        ("display_name", ChangeClass.IN_PLACE, "Support", "Support agent")
    ]
    assert change.request_body == {"display_name": "Support agent"}


def test_a_display_name_outside_the_config_is_left_as_it_is() -> None:
    """A config without display_name does not manage it: a live one plans nothing."""
    desired = git_desired()
    live = observed_from(desired).model_copy(update={"display_name": "Named in the UI"})
    plan = plan_one(desired, recorded_from(desired), live)
    assert [c.action for c in plan.changes] == [Action.NO_OP]


def test_create_sends_the_display_name_and_replanning_is_empty() -> None:
    """The create body carries display_name, and after apply the plan has no change."""
    desired = git_desired(display_name="Support")
    assert create_request_body(desired)["display_name"] == "Support"
    after = git_desired(display_name="Support 2")
    plan = plan_one(after, recorded_from(desired), observed_from(desired))
    recorded, live = apply_plan(plan, {"api": after}, {"api": observed_from(desired)})
    replanned = plan_one(after, recorded["api"], live["api"])
    assert [c.action for c in replanned.changes] == [Action.NO_OP]


def test_import_all_writes_the_live_display_name() -> None:
    """An adopted deployment's generated table declares its display_name."""
    live = observed_from(git_desired(display_name="Support"))
    generated = generated_config([live])
    assert generated.deployments["api"]["display_name"] == "Support"
