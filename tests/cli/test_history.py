"""`planner history NAME`: revisions newest first, status, what changed between them."""

from __future__ import annotations

import json
import time

from tests.cli.conftest import Scenario


def test_history_lists_revisions_newest_first_with_changes(scenario: Scenario) -> None:
    """Two applies of worker: two revisions, newest first, the image change named."""
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    scenario.edit_config("worker:1.0.0", "worker:1.1.0")
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    time.sleep(0.3)
    entries = json.loads(scenario.cli("history", "worker", "--format", "json").out)
    assert entries[0]["status"] == "DEPLOYED"
    assert entries[1]["status"] in {"DEPLOYED", "SKIPPED"}  # superseded early, or not
    assert entries[0]["active"] is True and entries[1]["active"] is False
    assert entries[0]["changed"] == ["source_revision_config.image_uri"]
    assert entries[1]["changed"] == []
    text = scenario.cli("history", "worker").out
    assert text.startswith("Revisions of worker, newest first:")
    assert "source_revision_config.image_uri" in text and "(first revision)" in text


def test_history_of_an_unknown_name_is_an_error(scenario: Scenario) -> None:
    """A name the state does not manage: exit 1, the error names it."""
    result = scenario.cli("history", "nope")
    assert result.code == 1
    assert "nope is not in the state" in result.err
