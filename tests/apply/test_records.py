"""What apply records: the server's ids and time, spelled as a refresh spells them."""

from __future__ import annotations

from planner.apply.records import recorded_from
from planner.plan.records import revision_fields
from tests.plan.builders import KEY, git_desired, observed_from


def test_updated_at_is_recorded_in_utc_with_a_z_as_refresh_records_it() -> None:
    """A create's record and a refresh's record spell `updated_at` alike (`...Z`, never
    `+00:00` in one and `Z` in the other)."""
    desired = git_desired()
    live = observed_from(desired)
    recorded = recorded_from(desired, live, KEY)
    assert recorded.updated_at is not None and recorded.updated_at.endswith("Z")
    assert "+00:00" not in recorded.updated_at
    assert recorded.updated_at == revision_fields(live)["updated_at"]
