"""The field-behaviour table classifies every field as PRODUCT.md says."""

from __future__ import annotations

import pytest

from planner.api.fields import ChangeClass, classify


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("name", ChangeClass.IMMUTABLE),
        ("source", ChangeClass.IMMUTABLE),
        ("source_config.integration_id", ChangeClass.IMMUTABLE),
        ("source_config.repo_url", ChangeClass.IMMUTABLE),
        ("source_config.deployment_type", ChangeClass.IMMUTABLE),
        ("source_config.listener_id", ChangeClass.IMMUTABLE),
        ("source_config.listener_config.k8s_namespace", ChangeClass.IMMUTABLE),
        ("source_config.build_on_push", ChangeClass.IN_PLACE),
        ("source_config.custom_url", ChangeClass.IN_PLACE),
        ("source_config.resource_spec.cpu", ChangeClass.NEW_REVISION),
        ("source_config.resource_spec.sidecars", ChangeClass.NEW_REVISION),
        ("source_config.install_command", ChangeClass.NEW_REVISION),
        ("source_config.build_command", ChangeClass.NEW_REVISION),
        ("source_revision_config.repo_ref", ChangeClass.NEW_REVISION),
        ("source_revision_config.image_uri", ChangeClass.NEW_REVISION),
        ("secrets", ChangeClass.NEW_REVISION),
        ("secret_references", ChangeClass.NEW_REVISION),
        ("source_revision_config.repo_commit_sha", ChangeClass.READ_ONLY),
        ("latest_revision_id", ChangeClass.READ_ONLY),
        ("updated_at", ChangeClass.READ_ONLY),
    ],
)
def test_classify_follows_the_table(path: str, expected: ChangeClass) -> None:
    """Each path gets the class of its longest prefix in the table."""
    assert classify(path) is expected
