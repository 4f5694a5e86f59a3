"""Wire model details the rest relies on: how a uuid field reads each spelling."""

from __future__ import annotations

import uuid

import pytest
from pydantic import BaseModel, ValidationError

from planner.api.models import UuidStr


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
