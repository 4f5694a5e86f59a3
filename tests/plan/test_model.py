"""The Plan value: closed actions, JSON keys and format version, its JSON Schema."""

from __future__ import annotations

import json

import pytest

from planner.errors import PlanError
from planner.plan.changes import field_change
from planner.plan.model import (
    DRIFT_REASON,
    FORMAT_VERSION,
    Action,
    Change,
    FieldChange,
    Plan,
    built,
    check_format_version,
    plan_json_schema,
)

from .builders import rich_plan


def test_actions_are_a_closed_set_with_symbols_and_json_names() -> None:
    """Every action has its symbol and its PRODUCT.md JSON name."""
    assert {a.value: a.symbol for a in Action} == {
        "create": "+",
        "update": "~",
        "new_revision": "↻",
        "delete": "-",
        "replace": "±",
        "no_op": " ",
    }


def test_json_keys_follow_the_product_contract() -> None:
    """The JSON plan has PRODUCT.md's keys, `class` included, and reads back equal."""
    plan = rich_plan()
    data = plan.model_dump(mode="json")
    assert data["format_version"] == "1.2"
    assert set(data["summary"]) == {
        "create",
        "update",
        "new_revision",
        "delete",
        "replace",
        "no_op",
        "moved",
    }
    assert {"format_version", "summary", "changes", "drift", "errors", "warnings"} <= set(data)
    change = next(c for c in data["changes"] if c["fields"])
    assert {"name", "action", "deployment_id", "fields", "patch"} <= set(change)
    assert set(change["fields"][0]) == {"path", "class", "before", "after", "reason", "drifted"}
    assert Plan.model_validate_json(json.dumps(data)) == plan


def test_the_plan_schema_is_the_json_plan() -> None:
    """plan_json_schema() describes `--format json` output (no `saved` section)."""
    schema = plan_json_schema()
    assert schema["additionalProperties"] is False
    assert "saved" not in schema["properties"]
    assert schema["$id"] == "plan.schema.json"


def test_drifted_is_a_key_of_the_json_plan() -> None:
    """A drifted field carries `drifted: true` in the JSON plan (format 1.1) and reads
    back equal; a field that did not drift says false."""
    field = field_change("source_config.build_on_push", True, False, drifted=True)
    data = field.model_dump(mode="json")
    assert data["drifted"] is True and data["reason"].endswith(DRIFT_REASON)
    assert FieldChange.model_validate(data) == field
    plain = field_change("source_config.build_on_push", True, False)
    assert plain.model_dump(mode="json")["drifted"] is False


def test_a_plan_of_another_format_version_is_refused_naming_both() -> None:
    """A 1.0 plan document (no `drifted` keys) is refused with both versions named."""
    check_format_version({"format_version": FORMAT_VERSION}, "p.json")
    with pytest.raises(PlanError, match=r"p.json has plan format_version '1.0'.*reads '1.2'"):
        check_format_version({"format_version": "1.0"}, "p.json")


def test_a_built_change_is_the_validated_one() -> None:
    """`built` gives what validation gives: the defaults of the fields left out (a fresh
    list or dict each), equal values, the same JSON and the same set of given names."""
    view = {"source": "git_host"}
    given = {"name": "api", "action": Action.NO_OP, "before": view, "after": view}
    fast, checked = built(Change, **given), Change(**given)
    assert fast == checked and fast.model_fields_set == checked.model_fields_set
    assert fast.model_dump_json() == checked.model_dump_json()
    assert fast.fields == [] and fast.fields is not built(Change, **given).fields
    assert built(FieldChange, path="source", before=1).model_fields_set == {"path", "before"}
