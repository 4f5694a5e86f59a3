"""Holds set and lifted on a state document (`planner.state.holds`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planner.errors import StateError
from planner.state.document import StateDocument
from planner.state.holds import held, new_hold, released
from planner.state.records import RecordedDeployment

SINCE = datetime(2026, 11, 23, 9, 53, 0, 123456, tzinfo=UTC)


def state_with_api(*, is_held: bool) -> StateDocument:
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    api = RecordedDeployment(name="api", id="d-1")
    doc.record(held(api, new_hold("r1", "ops@laptop", SINCE)) if is_held else api)
    return doc


def test_a_hold_says_when_in_utc_seconds_and_who() -> None:
    """`since` is ISO 8601 UTC to the second, with a Z; `by` and the revision as given."""
    hold = new_hold("r1", "ops@laptop", SINCE)
    assert (hold.revision_id, hold.since, hold.by) == ("r1", "2026-11-23T09:53:00Z", "ops@laptop")


def test_release_returns_the_record_without_its_hold_and_the_hold() -> None:
    """The record to write has no hold; the rest of it is unchanged."""
    doc = state_with_api(is_held=True)
    record, hold = released(doc, "api")
    assert record.held is None and hold.revision_id == "r1"
    assert record.model_copy(update={"held": hold}) == doc.get("api")


def test_releasing_a_record_that_is_not_held_is_refused_naming_the_way_in() -> None:
    """Not held: a StateError whose hint is the rollback command, with the options the
    run was given when the CLI asks for them."""
    with pytest.raises(StateError, match="api is not held") as refused:
        released(state_with_api(is_held=False), "api")
    assert refused.value.hint_for is not None
    assert "`planner rollback --env prod api`" in refused.value.hint_for(["--env", "prod"])


def test_releasing_an_unmanaged_name_lists_the_managed_ones() -> None:
    """An unknown name: the state's own error, naming the managed deployments."""
    with pytest.raises(StateError, match="nope is not in the state") as refused:
        released(state_with_api(is_held=True), "nope")
    assert "api" in (refused.value.hint or "")
