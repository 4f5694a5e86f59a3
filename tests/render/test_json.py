"""The JSON view: the Plan's model_dump, pretty-printed, stable."""

from __future__ import annotations

import json

from planner.plan.model import Plan
from planner.render.json import render_json
from tests.plan.builders import SECRET_VALUES


def test_json_matches_the_golden_file(plan, golden) -> None:
    """The rich plan renders exactly as tests/render/golden/plan.json."""
    golden("plan.json", render_json(plan))


def test_json_reads_back_as_the_same_plan(plan) -> None:
    """The JSON is the plan's model_dump and validates back to an equal Plan."""
    text = render_json(plan)
    assert json.loads(text) == plan.model_dump(mode="json")
    assert Plan.model_validate_json(text) == plan
    assert not [value for value in SECRET_VALUES if value in text]
