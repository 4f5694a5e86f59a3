"""The plan as JSON: the keys of PRODUCT.md, `format_version` "1.2" (schemas/plan.schema.json)."""

from __future__ import annotations

import json

from planner.plan.model import Plan
from planner.render.safe import visible_json


def render_json(plan: Plan) -> str:
    """Pretty-printed, stable JSON (a trailing newline, keys in model order); control and
    bidi characters as `\\uXXXX` escapes (`planner.render.safe`)."""
    text = json.dumps(plan.model_dump(mode="json"), indent=2, ensure_ascii=False)
    return visible_json(text) + "\n"
