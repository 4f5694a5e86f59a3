"""The Plan value: closed actions, summary line, JSON keys, its JSON Schema."""

from __future__ import annotations

import json

import pytest

from planner.plan.changes import field_change
from planner.plan.model import (
    DRIFT_REASON,
    Action,
    Change,
    FieldChange,
    Plan,
    PlanProblem,
    Summary,
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


@pytest.mark.parametrize(
    ("counts", "line"),
    [
        (
            {"create": 1, "update": 2, "new_revision": 3, "delete": 1},
            "Plan: 1 to create, 2 to update in place, 3 new revisions, 1 to delete.",
        ),
        (
            {"new_revision": 1, "replace": 1},
            "Plan: 0 to create, 0 to update in place, 1 new revision, 0 to delete, 1 to replace.",
        ),
    ],
)
def test_summary_line(counts: dict[str, int], line: str) -> None:
    """The summary line counts each action; replace only appears when there is one."""
    changes = [
        Change(name=f"{a}{i}", action=Action(a)) for a, n in counts.items() for i in range(n)
    ]
    plan = Plan(summary=Summary(**counts), changes=changes)
    assert plan.summary_line() == line


def test_a_plan_with_only_errors_does_not_claim_the_config_matches() -> None:
    """A plan whose only changes are errors (an immutable field) never says "match"."""
    error = PlanProblem(name="api", path="source_config.repo_url", message="cannot change")
    plan = Plan(changes=[Change(name="api", action=Action.NO_OP)], errors=[error])
    assert plan.summary_line() == "No changes can be planned: the plan has errors."


def test_an_empty_destroy_plan_says_there_is_nothing_to_destroy() -> None:
    """A destroy plan with nothing in the state does not claim the config matches."""
    plan = Plan(mode="destroy")
    assert plan.summary_line() == "No changes. Nothing to destroy."


def test_json_keys_follow_the_product_contract() -> None:
    """The JSON plan has PRODUCT.md's keys, `class` included, and reads back equal."""
    plan = rich_plan()
    data = plan.model_dump(mode="json")
    assert data["format_version"] == "1.0"
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
    assert set(change["fields"][0]) == {"path", "class", "before", "after", "reason"}
    assert Plan.model_validate_json(json.dumps(data)) == plan


def test_the_plan_schema_is_the_json_plan() -> None:
    """plan_json_schema() describes `--format json` output (no `saved` section)."""
    schema = plan_json_schema()
    assert schema["additionalProperties"] is False
    assert "saved" not in schema["properties"]
    assert schema["$id"] == "plan.schema.json"


def test_drift_is_a_flag_that_survives_the_json_plan() -> None:
    """A drifted field carries `drifted`; the JSON plan keeps it in the reason only, and
    reading the plan back sets the flag again."""
    field = field_change("source_config.build_on_push", True, False, drifted=True)
    data = field.model_dump(mode="json")
    assert "drifted" not in data and data["reason"].endswith(DRIFT_REASON)
    assert FieldChange.model_validate(data) == field
    plain = field_change("source_config.build_on_push", True, False)
    assert FieldChange.model_validate(plain.model_dump(mode="json")).drifted is False
