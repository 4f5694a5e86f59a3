"""Drift: recorded values against observed ones, secrets through their digests."""

from __future__ import annotations

from planner.plan.drift import deployment_drift

from .builders import KEY, edit, git_desired, observed_from, recorded_from


def test_secrets_added_and_removed_outside_are_drift() -> None:
    """A secret added or removed outside the planner is drift, masked."""
    desired = git_desired(secrets={"A": "1", "B": "2"})
    live = edit(
        observed_from(desired),
        {"secrets": [{"name": "A", "value": "1"}, {"name": "C", "value": "3"}]},
    )
    drift = deployment_drift(recorded_from(desired), live, ignore_changes=(), digest_key=KEY)
    assert [(d.path, d.recorded, d.observed) for d in drift] == [
        ("secrets.B", "(sensitive)", None),
        ("secrets.C", None, "(sensitive)"),
    ]


def test_a_different_digest_key_reads_every_secret_as_drift() -> None:
    """Digests are keyed: a state made with another key cannot vouch for the values."""
    desired = git_desired(secrets={"A": "1"})
    drift = deployment_drift(
        recorded_from(desired, key=b"other"),
        observed_from(desired),
        ignore_changes=(),
        digest_key=KEY,
    )
    assert [d.path for d in drift] == ["secrets.A"]


def test_ignored_secrets_and_fields_never_drift() -> None:
    """`secrets` and field paths under ignore_changes are left out of drift."""
    desired = git_desired(secrets={"A": "1"})
    live = edit(
        observed_from(desired),
        {"secrets": [{"name": "A", "value": "2"}], "source_config": {"build_on_push": True}},
    )
    ignore = ("secrets", "source_config.build_on_push")
    assert (
        deployment_drift(recorded_from(desired), live, ignore_changes=ignore, digest_key=KEY) == []
    )
