"""The event models of `--format json`: a closed set, each line's schema checked in."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.apply.events import APPLY_EVENT, apply_events_json_schema


def test_the_schema_names_every_event_type_and_requires_the_common_keys() -> None:
    """Every event type is in the schema, and each requires `type`, `time`, `deployment`."""
    schema = apply_events_json_schema()
    types = {
        d["properties"]["type"]["const"]: d
        for d in schema["$defs"].values()
        if "type" in d.get("properties", {})
    }
    assert set(types) == {
        "start", "status", "operation", "retry", "pause", "interrupt", "error", "summary",
    }  # fmt: skip
    for definition in types.values():
        assert {"type", "time", "deployment"} <= set(definition["required"])


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "start", "time": "2026-11-23 14:05:01", "deployment": null,'
        ' "operation": "apply", "changes": 1}',
        '{"type": "start", "time": "2026-11-23T14:05:01+01:00", "deployment": null,'
        ' "operation": "apply", "changes": 1}',
        '{"type": "launch", "time": "2026-11-23T14:05:01Z", "deployment": null}',
        '{"type": "pause", "time": "2026-11-23T14:05:01Z", "deployment": null,'
        ' "status_code": 429, "wait_seconds": 1, "extra": true}',
    ],
)
def test_a_line_outside_the_set_is_refused(line: str) -> None:
    """A time not in UTC `Z` form, an unknown type or an unknown key is not an event."""
    with pytest.raises(ValidationError):
        APPLY_EVENT.validate_json(line)
