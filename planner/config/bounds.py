"""How far variables and templates may expand a config: bounded, and found early.

A `${var.NAME}` repeated in a string, a variable holding a large table, a template or
`[defaults]` picked by thousands of deployments: each multiplies what the file says. The
resolution counts what it produces (a template and the defaults once per deployment that
gets them) and stops as soon as the whole passes `MAX_EXPANDED_BYTES` (one problem at the
value where it did, before anything is validated), and a single value that passes
`MAX_VALUE_BYTES` is a problem at its place (the string is never built past the limit).
Sizes are UTF-8 bytes of strings and keys, 8 for any other scalar.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planner.config.diagnostics import Loc, Problem

MIB = 1024 * 1024
MAX_EXPANDED_BYTES = 16 * MIB
MAX_VALUE_BYTES = 1 * MIB
VALUE_TOO_LARGE = "expands past 1 MiB (a value is at most 1 MiB after ${...} expansion)"
CONFIG_TOO_LARGE = (
    "the config expands past 16 MiB here (variables, templates and [defaults] repeated "
    "in every deployment that uses them); nothing was validated"
)
_SCALAR_BYTES = 8
_SCALARS = frozenset({int, float, bool, type(None)})


class ExpansionTooLarge(Exception):
    """The whole expansion passed `MAX_EXPANDED_BYTES`; `problem` says where."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass
class Budget:
    """What a resolution has produced so far, in bytes."""

    spent: int = 0

    def fits(self, size: int) -> bool:
        """Whether SIZE more bytes stay within the bound."""
        return self.spent + size <= MAX_EXPANDED_BYTES

    def spend(self, size: int, loc: Loc) -> None:
        """Count SIZE bytes made at LOC; ExpansionTooLarge once the total passes the bound."""
        self.spent += size
        if self.spent > MAX_EXPANDED_BYTES:
            raise ExpansionTooLarge(Problem(loc, CONFIG_TOO_LARGE))


def text_bytes(text: str) -> int:
    """TEXT's size in UTF-8 (an ASCII string's length, without encoding it)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def size_of(value: Any) -> int:
    """The size of a parsed value: its strings and keys in UTF-8, 8 per other scalar."""
    if isinstance(value, str):
        return text_bytes(value)
    if isinstance(value, Mapping):
        return sum(text_bytes(str(key)) + size_of(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(size_of(item) for item in value)
    return _SCALAR_BYTES


def plain_size(value: Any) -> int | None:
    """`size_of(VALUE)` when nothing in it is interpolated (no `$` in a string, plain
    dicts, lists and JSON scalars only), else None: the value needs the full walk."""
    kind = type(value)
    if kind is str:
        return None if "$" in value else text_bytes(value)
    if kind is dict:
        total = 0
        for key, item in value.items():
            if type(item) is str and "$" not in item and item.isascii():  # most values
                size: int | None = len(item)
            else:
                size = plain_size(item)
            if size is None or type(key) is not str:
                return None
            total += (len(key) if key.isascii() else text_bytes(key)) + size
        return total
    if kind is list:
        sizes = [plain_size(item) for item in value]
        return None if None in sizes else sum(sizes)  # type: ignore[arg-type]
    return _SCALAR_BYTES if kind in _SCALARS else None
