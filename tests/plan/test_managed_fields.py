"""Managed fields and their RFC 6902 patches keep secrets masked but visible as changes."""

from __future__ import annotations

from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.config.desired import DesiredDeployment
from planner.plan.managed_fields import observed_doc, observed_values, view, view_patch
from planner.plan.paths import flatten, get_path

from .builders import edit, observed_from
from .strategies import desired_deployments, outside_edits


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


@settings(max_examples=200, deadline=None)
@given(desired_deployments("api"), outside_edits, st.booleans())
def test_observed_values_are_the_dumps_values(
    desired: DesiredDeployment, edits: dict[str, Any], edited: bool
) -> None:
    """Each observed value read from the model's attributes is the one its wire dump holds
    at that path: scalars, nulls, objects, lists, secrets (left out), unknown paths."""
    observed = observed_from(desired, build_on_push=None)
    observed = edit(observed, edits) if edited else observed
    doc = observed_doc(observed)
    paths = [
        *flatten(doc),
        *flatten(desired.managed()),
        "secrets",
        "secrets.A",
        "source_config.resource_spec.labels.team",
        "source_config.nothing",
        "source_config.repo_url.deeper",
        "created_at",
        "nothing.at.all",
    ]
    assert observed_values(observed, paths) == {path: get_path(doc, path) for path in paths}
