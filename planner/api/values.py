"""Bounds on any JSON value of a deployment, shared by the config validator and the server.

One definition of what a value may be, wherever it sits (free-form labels included):
- integers fit in 64 bits (`INT64_MIN..INT64_MAX`; SQLite's range, and any client's);
- floats are finite (JSON has no `NaN` / `Infinity`, though parsers let them through)
  and within the same range (one `minimum`/`maximum` for every number of a free-form
  value in the OpenAPI document);
- strings, object keys included, are valid Unicode (no lone surrogate escapes) and at most
  `MAX_STRING_LENGTH` characters;
- objects and arrays nest at most `MAX_JSON_DEPTH` levels, the body itself being level 1.
Stored, a value past any of these would break every later answer that includes it.
Locations are paths from the checked value: object keys, list indices as ints.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from planner.files import Loc, nested_too_deep

ValueProblem = tuple[Loc, str]

# Far more than any real deployment needs, far below Python's recursion limit.
MAX_JSON_DEPTH = 32
# 16 KiB of text: a certificate chain, a key file or a long command fits, a 30 MB label
# does not. Small enough that a body of many values over it (lists of lists of them,
# escaped at up to 12 bytes a character) still fits the server's 16 MiB body limit and is
# refused naming the field (422), not unread (413).
MAX_STRING_LENGTH = 16_384
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def check_values(data: Any, loc: Loc = ()) -> list[ValueProblem]:
    """Every value in `data` out of bounds, all at once. Nesting is `nested_too_deep`'s to
    report; this walk only stops going deeper there, so it never recurses unboundedly."""
    return check_bounds(data, loc)[1]


def check_bounds(data: Any, loc: Loc = ()) -> tuple[Loc | None, list[ValueProblem]]:
    """One walk for both: the path to the first object or array nested deeper than
    `MAX_JSON_DEPTH` (what `planner.files.nested_too_deep` finds; None: none is), and
    every value out of bounds (`check_values`)."""
    if _is_plain(data, len(loc)):  # most bodies: nothing to report, no paths to build
        return None, []
    walk = _Walk()
    walk.visit(data, loc)
    return walk.too_deep, walk.problems


def is_plain(data: Any, depth: int) -> bool:
    """True when `check_bounds` surely finds nothing in DATA at DEPTH (of a body checked
    part by part: a part at the top of a body is at depth 1)."""
    return _is_plain(data, depth)


def _is_plain(data: Any, depth: int) -> bool:
    """True when nothing in DATA (at DEPTH) can be out of bounds: plain JSON types only,
    ASCII strings within the length, numbers within range, nesting within the limit.
    False says only "look closer" (`_Walk` finds what, if anything, is wrong)."""
    kind = type(data)
    if kind is str:
        return len(data) <= MAX_STRING_LENGTH and data.isascii()
    if kind is dict:
        if depth >= MAX_JSON_DEPTH:
            return False
        for key, value in data.items():  # strings and numbers inline: most values are
            if type(key) is not str or len(key) > MAX_STRING_LENGTH or not key.isascii():
                return False
            kind = type(value)
            if kind is str:
                if len(value) > MAX_STRING_LENGTH or not value.isascii():
                    return False
            elif kind is int or kind is float:
                if not INT64_MIN <= value <= INT64_MAX:
                    return False
            elif not _is_plain(value, depth + 1):
                return False
        return True
    if kind is list:
        return depth < MAX_JSON_DEPTH and all(_is_plain(item, depth + 1) for item in data)
    if kind is int or kind is float:
        return bool(INT64_MIN <= data <= INT64_MAX)  # False for NaN, and past the range
    return kind is bool or data is None


class _Walk:
    def __init__(self) -> None:
        self.too_deep: Loc | None = None
        self.problems: list[ValueProblem] = []

    def visit(self, data: Any, loc: Loc) -> None:
        # exact types first: the ABC check of a Mapping costs several times more
        is_object = type(data) is dict or (type(data) is not list and isinstance(data, Mapping))
        if is_object or isinstance(data, list):
            if len(loc) >= MAX_JSON_DEPTH:
                self.too_deep = loc if self.too_deep is None else self.too_deep
            elif is_object:
                self.visit_object(data, loc)
            else:
                for index, item in enumerate(data):
                    self.visit(item, (*loc, index))
            return
        problem = _scalar_problem(data)
        if problem is not None:
            self.problems.append((loc, problem))

    def visit_object(self, data: Mapping[Any, Any], loc: Loc) -> None:
        for key, value in data.items():
            key_problem = _scalar_problem(str(key))
            if key_problem is None:
                self.visit(value, (*loc, str(key)))
            else:  # reported on the object: the key itself cannot go into a `loc`
                self.problems.append((loc, f"keys {key_problem}"))
                self.look_deeper(value, (*loc, key))

    def look_deeper(self, data: Any, loc: Loc) -> None:
        """Only the nesting of DATA (at LOC), whose values are not checked."""
        if self.too_deep is None:
            found = nested_too_deep(data, MAX_JSON_DEPTH - len(loc))
            self.too_deep = None if found is None else (*loc, *found)


def _scalar_problem(value: Any) -> str | None:
    if type(value) is str:  # most values: one exact type check first
        return _string_problem(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        return "must be a 64-bit integer (between -2**63 and 2**63 - 1)"
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    if isinstance(value, float) and not INT64_MIN <= value <= INT64_MAX:
        return "must be between -2**63 and 2**63 - 1"
    if isinstance(value, str):
        return _string_problem(value)
    return None


def _string_problem(text: str) -> str | None:
    if len(text) > MAX_STRING_LENGTH:
        return f"must be at most {MAX_STRING_LENGTH} characters"
    if text.isascii():  # no surrogate: the common case costs no encoding
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode (no lone surrogate escapes)"
    return None
