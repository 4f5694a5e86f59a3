"""`planner status`: every managed deployment as it runs now, text and JSON."""

from __future__ import annotations

import json
import time

from tests.cli.conftest import Scenario


def test_status_shows_each_managed_deployment_with_revisions_and_drift(
    scenario: Scenario,
) -> None:
    """A row per managed deployment: revisions with status, drift yes/no; JSON alike."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    time.sleep(0.3)
    worker = scenario.state().deployments["worker"]  # type: ignore[union-attr]
    scenario.patch(worker.id, {"source_revision_config": {"image_uri": "registry/x:fail-build"}})
    api = scenario.state().deployments["api"]  # type: ignore[union-attr]
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    time.sleep(0.3)
    result = scenario.cli("status")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == [
        "NAME", "ID", "ACTIVE", "REVISION", "LATEST", "REVISION", "UPDATED", "URL", "DRIFT"
    ]  # fmt: skip
    rows = json.loads(scenario.cli("status", "--format", "json").out)
    by_name = {row["name"]: row for row in rows}
    assert by_name["api"]["drift"] is True and by_name["api"]["latest_status"] == "DEPLOYED"
    assert by_name["worker"]["latest_status"] == "BUILD_FAILED"
    assert by_name["worker"]["active_status"] == "DEPLOYED"
    assert by_name["worker"]["drift"] is True
    assert "BUILD_FAILED" in result.out


def test_status_of_an_empty_state_says_so(scenario: Scenario) -> None:
    """No managed deployment: one line saying the state manages nothing."""
    result = scenario.cli("status")
    assert result.code == 0
    assert "No deployments in the state" in result.out
    assert json.loads(scenario.cli("status", "--format", "json").out) == []
