"""The plan as JSON: the keys of PRODUCT.md, `format_version` "1.2" (schemas/plan.schema.json)."""

from __future__ import annotations

import json

from planner.plan.model import Plan


def render_json(plan: Plan) -> str:
    """Pretty-printed, stable JSON (a trailing newline, keys in model order)."""
    return json.dumps(plan.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
