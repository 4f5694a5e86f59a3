"""`apply` refuses a plan with errors with the same errors `plan` shows, in JSON too:
found while checking the plan/apply property (tests/cli/apply/test_apply_matches_plan.py),
whose refusal step saw an error event that names none of them."""

from __future__ import annotations

import json

from tests.cli.conftest import Scenario
from tests.event_lines import event_lines


def test_apply_json_names_the_plan_errors_it_refuses(scenario: Scenario) -> None:
    """An immutable change: apply's error event carries the plan's error (name, field)."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("acme/api", "acme/api-v2")
    (error,) = json.loads(scenario.plan("--format", "json").out)["errors"]
    applied = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert applied.code == 1
    event = event_lines(applied.out)[-1]
    assert event["type"] == "error" and event["error"]["code"] == "plan-invalid"
    assert any(error["path"] in d and "api" in d for d in event["error"]["details"]), event
