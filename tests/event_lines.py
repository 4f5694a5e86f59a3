"""Reading `planner apply --format json` output in tests: every line checked against the
checked-in `schemas/apply-events.schema.json` (not the models it was generated from)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "apply-events.schema.json"


@cache
def validator() -> Any:
    return jsonschema_rs.validator_for(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def event_lines(stdout: str) -> list[dict[str, Any]]:
    """The events of STDOUT, one per line; fails on a line that is not a valid event."""
    events = []
    for line in stdout.splitlines():
        event = json.loads(line)
        errors = [e.message for e in validator().iter_errors(event)]
        assert not errors, f"{line}: {errors}"
        # PRODUCT.md: every line carries these keys (status: the deployment's or the run's)
        assert {"type", "time", "deployment", "status"} <= set(event), line
        events.append(event)
    return events
