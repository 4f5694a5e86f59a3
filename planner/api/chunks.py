"""Request-sized pieces: id lists cut for list filters, bulk deletes and SQL `IN`, and the
page size of every paged listing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
PAGE_SIZE = 100  # items a listing asks for per page


def chunked(items: Sequence[T], size: int) -> list[list[T]]:
    """ITEMS in order, in lists of at most SIZE."""
    return [list(items[start : start + size]) for start in range(0, len(items), size)]
