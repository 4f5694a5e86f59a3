"""What apply records: the server's ids and time, spelled as a refresh spells them."""

from __future__ import annotations

from planner.apply.record_updates import rerecorded
from planner.plan.record_builders import recorded_from, revision_fields
from tests.plan.builders import git_desired, observed_from


def test_updated_at_is_recorded_in_utc_with_a_z_as_refresh_records_it() -> None:
    """A create's record and a refresh's record spell `updated_at` alike (`...Z`, never
    `+00:00` in one and `Z` in the other)."""
    desired = git_desired()
    live = observed_from(desired)
    recorded = recorded_from(desired, live, {})
    assert recorded.updated_at is not None and recorded.updated_at.endswith("Z")
    assert "+00:00" not in recorded.updated_at
    assert recorded.updated_at == revision_fields(live)["updated_at"]


def test_a_record_carries_the_planned_secret_digests_not_the_config_s_values() -> None:
    """The secret digests recorded are the ones the plan carries (of the values sent or
    seen on the server), never recomputed from the values the config gives now."""
    desired = git_desired(secrets={"TOKEN": "value-at-apply-time"})
    live = observed_from(desired)
    planned = {"TOKEN": "hmac-sha256:planned"}
    assert recorded_from(desired, live, planned).secret_digests == planned
    previous = recorded_from(desired, live, {})
    assert rerecorded(desired, previous, planned).secret_digests == planned
