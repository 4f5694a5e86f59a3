"""Managed views and their RFC 6902 patches keep secrets masked but visible as changes."""

from __future__ import annotations

import jsonpatch

from planner.plan.views import view, view_patch


def test_a_changed_secret_has_a_masked_replace_op() -> None:
    """Masked values look equal, so the patch says the secret changes with a replace op."""
    before = view({"source": "git_host"}, ["A"])
    after = view({"source": "git_host"}, ["A", "B"])
    ops = view_patch(before, after, changed_secrets=["A"])
    assert {"op": "replace", "path": "/secrets/0/value", "value": "(sensitive)"} in ops
    assert jsonpatch.apply_patch(before, ops) == after


def test_unmanaged_secrets_are_left_out_of_the_view() -> None:
    """None means secrets are not managed: no `secrets` key at all."""
    assert view({"source_config.build_on_push": True}, None) == {
        "source_config": {"build_on_push": True}
    }
