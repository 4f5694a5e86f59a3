"""Wire models the official clients' flows add: deletion statuses and request bodies."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.api.models import (
    BuildLogRequest,
    DeploymentPatch,
    DeploymentStatus,
    RevisionCreate,
    is_being_deleted,
)


def test_both_deletion_statuses_count_as_being_deleted() -> None:
    """AWAITING_DELETE and AWAITING_FINAL_DELETE are on the way out; READY is not."""
    assert is_being_deleted(DeploymentStatus.AWAITING_DELETE)
    assert is_being_deleted("AWAITING_FINAL_DELETE")
    assert not is_being_deleted(DeploymentStatus.READY)


def test_a_revision_body_needs_its_source_revision_config() -> None:
    """POST .../revisions without source_revision_config is refused; extras are ignored."""
    with pytest.raises(ValidationError):
        RevisionCreate.model_validate({"secrets": []})
    body = RevisionCreate.model_validate(
        {"source_revision_config": {"repo_ref": "main"}, "revision_source": "git_host"}
    )
    assert body.source_revision_config.repo_ref == "main"


def test_display_name_and_build_log_offsets_are_bounded() -> None:
    """An empty display_name and a non-numeric log offset are refused."""
    with pytest.raises(ValidationError):
        DeploymentPatch.model_validate({"display_name": ""})
    with pytest.raises(ValidationError):
        BuildLogRequest.model_validate({"offset": "abc"})
    assert BuildLogRequest.model_validate({}).limit == 50
