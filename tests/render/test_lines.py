"""Diff lines shared by the views: named lists by element, order of blocks."""

from __future__ import annotations

from planner.api.fields import ChangeClass
from planner.plan.changes import show
from planner.plan.model import Action, FieldChange
from planner.render.lines import field_lines
from planner.render.text import line_text


def test_env_lists_are_diffed_by_name() -> None:
    """One env value changed inside a container reads as one line, named at each level."""
    before = [{"name": "app", "env": [{"name": "A", "value": "1"}]}]
    after = [{"name": "app", "env": [{"name": "A", "value": "2"}]}]
    field = FieldChange(
        path="source_config.resource_spec.sidecars",
        change_class=ChangeClass.NEW_REVISION,
        before=before,
        after=after,
    )
    [line] = field_lines(field, Action.NEW_REVISION)
    assert (line.sign, line.path, line.before, line.after) == (
        "~",
        "source_config.resource_spec.sidecars[app].env[A].value",
        "1",
        "2",
    )


def test_lists_without_names_are_one_line() -> None:
    """A list of plain values is compared and shown whole."""
    field = FieldChange(path="x", change_class=ChangeClass.IN_PLACE, before=[1], after=[2])
    assert [(x.sign, x.before, x.after) for x in field_lines(field, Action.UPDATE)] == [
        ("~", [1], [2])
    ]


def test_whole_floats_show_as_the_integer_the_config_wrote() -> None:
    """`cpu = 1` reaches the model as 1.0 but shows as 1, at any depth; 1.5 stays 1.5."""
    assert show(1.0) == "1"
    assert show({"cpu": 2.0, "ratio": 1.5, "list": [3.0, "4.0"]}) == (
        '{"cpu": 2, "list": [3, "4.0"], "ratio": 1.5}'
    )
    field = FieldChange(
        path="source_config.resource_spec.cpu",
        change_class=ChangeClass.NEW_REVISION,
        before=None,
        after=1.0,
    )
    [line] = field_lines(field, Action.CREATE)
    assert line_text(line).text.endswith("cpu = 1")
