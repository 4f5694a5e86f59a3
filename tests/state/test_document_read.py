"""Reading a state: its checksum verified over the body as read, in one pass."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.state.document import _read_checksum, compute_checksum
from tests.state.test_document_pieces import _TEXT, _VALUES


@settings(max_examples=300)
@given(st.dictionaries(_TEXT, _VALUES, max_size=6))
def test_a_read_body_has_the_checksum_of_its_pieces(body: dict[str, Any]) -> None:
    """Any JSON object: the one-pass checksum of a read is the one written (in pieces)."""
    assert _read_checksum(body) == compute_checksum(body)
