"""Wire models the official clients' flows add: deletion statuses and request bodies; how
a uuid field reads each spelling."""

from __future__ import annotations

import uuid

import pytest
from pydantic import BaseModel, ValidationError

from planner.api.models import (
    _SCALAR_FIELDS,
    _SCALAR_KINDS,
    DeploymentPatch,
    DeploymentStatus,
    ResourceSpec,
    RevisionCreate,
    SourceConfig,
    UuidStr,
    WireModel,
    is_being_deleted,
)
from planner.api.support_models import BuildLogRequest


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


class Holder(BaseModel):
    id: UuidStr


def test_a_canonical_uuid_is_kept_as_sent() -> None:
    """The lower-case hyphenated spelling every server sends reads back unchanged."""
    for _ in range(100):
        canonical = str(uuid.uuid4())
        assert Holder(id=canonical).id == canonical


@pytest.mark.parametrize(
    "spelling",
    [
        "8F16FEE8-5FA7-4A84-8B2E-EA5680FC090C",
        "{8f16fee8-5fa7-4a84-8b2e-ea5680fc090c}",
        "8f16fee85fa74a848b2eea5680fc090c",
        "urn:uuid:8f16fee8-5fa7-4a84-8b2e-ea5680fc090c",
    ],
)
def test_another_spelling_of_a_uuid_reads_as_the_canonical_one(spelling: str) -> None:
    """Upper case, braces, no hyphens or a URN: the same id, spelled canonically."""
    assert Holder(id=spelling).id == "8f16fee8-5fa7-4a84-8b2e-ea5680fc090c"


@pytest.mark.parametrize(
    "wrong", ["8f16fee8-5fa7-4a84-8b2e-ea5680fc090c\n", "8f16fee8", "", "g" * 32]
)
def test_what_is_no_uuid_is_refused(wrong: str) -> None:
    """Anything else is no uuid, whatever it resembles."""
    with pytest.raises(ValidationError, match="valid UUID"):
        Holder(id=wrong)


def _wire_models() -> set[type[WireModel]]:
    found: set[type[WireModel]] = set()
    pending: list[type[WireModel]] = [WireModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            found.add(sub)
            pending.append(sub)
    return found


def test_every_scalar_wire_field_is_named_for_the_json_kind_check() -> None:
    """The JSON kind check runs on the fields `_SCALAR_FIELDS` names: every bool, int or
    float field of every wire model (the server's included) must be among them."""
    import planner.controlplane.app  # noqa: F401  (its models, if it adds any)

    scalar = {
        name
        for model in _wire_models()
        for name, field in model.model_fields.items()
        if field.annotation in _SCALAR_KINDS
    }
    assert "cpu" in scalar and "build_on_push" in scalar
    assert scalar <= set(_SCALAR_FIELDS)


def test_a_scalar_field_keeps_its_json_kind() -> None:
    """`true` is no number, "2" no whole number, 1 no boolean; 2.0 is a whole number."""
    for wrong, message in (
        ({"cpu": True}, "must be a number"),
        ({"min_scale": "2"}, "must be a whole number"),
    ):
        with pytest.raises(ValidationError, match=message):
            ResourceSpec.model_validate(wrong)
    with pytest.raises(ValidationError, match="must be true or false"):
        SourceConfig.model_validate({"build_on_push": 1})
    assert ResourceSpec.model_validate({"min_scale": 2.0}).min_scale == 2
