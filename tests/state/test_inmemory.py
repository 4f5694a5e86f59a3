"""The in-memory backend passes the backend contract."""

from __future__ import annotations

from typing import Any

import pytest

from planner.state import InMemoryBackend, MemoryStore
from tests.state.contract import BackendContract, Harness, edit_json_text


@pytest.fixture
def harness() -> Harness:
    store = MemoryStore()

    def edit_stored(edit: Any) -> None:
        assert store.text is not None
        store.text = edit_json_text(store.text, edit)

    def stored_text() -> str:
        assert store.text is not None
        return store.text

    return Harness(
        backend=InMemoryBackend(store),
        peer=lambda: InMemoryBackend(store),
        edit_stored=edit_stored,
        stored_text=stored_text,
        other_state=InMemoryBackend,
    )


class TestInMemoryBackend(BackendContract):
    """The contract, for InMemoryBackend."""


def test_separate_stores_are_independent() -> None:
    """Two backends without a shared store neither see each other's state nor lock."""
    first, second = InMemoryBackend(), InMemoryBackend()
    with first.lock("apply"), second.lock("apply") as other:
        assert other.is_held
    assert second.read() is None
