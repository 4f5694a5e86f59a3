"""Reading `planner apply --format json` output in tests: every line checked against the
checked-in `schemas/apply-events.schema.json` (not the models it was generated from);
`planner reconcile --format json` against `schemas/reconcile-events.schema.json`."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

SCHEMAS = Path(__file__).parents[1] / "schemas"
SCHEMA_PATH = SCHEMAS / "apply-events.schema.json"
RECONCILE_SCHEMA = "reconcile-events.schema.json"


@cache
def validator(name: str = SCHEMA_PATH.name) -> Any:
    return jsonschema_rs.validator_for(json.loads((SCHEMAS / name).read_text(encoding="utf-8")))


def event_lines(stdout: str, schema: str = SCHEMA_PATH.name) -> list[dict[str, Any]]:
    """The events of STDOUT, one per line; fails on a line that is not a valid event of
    SCHEMA (a file of schemas/)."""
    events = []
    for line in stdout.splitlines():
        event = json.loads(line)
        errors = [e.message for e in validator(schema).iter_errors(event)]
        assert not errors, f"{line}: {errors}"
        # PRODUCT.md: every line carries these keys (status: the deployment's or the run's)
        assert {"type", "time", "deployment", "status"} <= set(event), line
        events.append(event)
    return events
