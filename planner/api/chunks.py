"""Cutting id lists into request-sized pieces (list filters, bulk deletes, SQL `IN`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def chunked(items: Sequence[T], size: int) -> list[list[T]]:
    """ITEMS in order, in lists of at most SIZE."""
    return [list(items[start : start + size]) for start in range(0, len(items), size)]
