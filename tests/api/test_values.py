"""Bounds on any JSON value the planner sends and the control plane stores."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.api import values
from planner.api.values import MAX_JSON_DEPTH, MAX_STRING_LENGTH, check_bounds, check_values
from planner.files import nested_too_deep


def nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def test_values_within_bounds_have_no_problems() -> None:
    """64-bit integers, finite floats and strings up to the limit are fine."""
    data = {"a": [2**63 - 1, -(2**63), 1.5, "x" * MAX_STRING_LENGTH], "b": {"c": None}}
    assert check_values(data) == []


def test_each_out_of_bounds_value_is_named_by_its_path() -> None:
    """Big integers, long strings and keys, non-finite floats and lone surrogates each
    give one problem at their own path (list items by index)."""
    data = {
        "big": [0, 2**63],
        "small": -(2**63) - 1,
        "long": "x" * (MAX_STRING_LENGTH + 1),
        "inf": float("inf"),
        "bad": "\ud800",
        "obj": {"k" * (MAX_STRING_LENGTH + 1): 1},
    }
    locs = [loc for loc, _ in check_values(data)]
    assert locs == [("big", 1), ("small",), ("long",), ("inf",), ("bad",), ("obj",)]


def test_booleans_are_not_bounded_as_integers() -> None:
    """True/False are not integers for the range check."""
    assert check_values([True, False]) == []


def test_nesting_depth_counts_the_outer_value_as_level_one() -> None:
    """MAX_JSON_DEPTH levels are fine; one more is named at the first container past it."""
    assert nested_too_deep(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH) is None
    assert nested_too_deep(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH) == (0,) * MAX_JSON_DEPTH
    assert nested_too_deep({"a": {"b": [1, {}]}}, limit=3) == ("a", "b", 1)


def test_nesting_depth_is_safe_at_any_depth() -> None:
    """A value nested far past Python's recursion limit is walked without recursion."""
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert nested_too_deep(deep, MAX_JSON_DEPTH) == (0,) * MAX_JSON_DEPTH
    assert check_values(deep) == []  # depth is nested_too_deep's business, not a crash


def chain(levels: int) -> Any:
    """A value nested LEVELS deep, objects and arrays in turn."""
    value: Any = "x"
    for level in range(levels):
        value = {"k": value} if level % 2 else [value]
    return value


json_values = st.recursive(
    st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(["ok", "\ud800", ""]),
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "\ud800"]), inner, max_size=3)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.integers(0, 40), st.sampled_from(["a", "\ud800"]))
def test_one_walk_finds_what_the_two_walks_find(value: Any, depth: int, key: str) -> None:
    """`check_bounds` answers, in one walk, the first too-deep path `nested_too_deep`
    finds and the problems `check_values` lists (under bad keys too)."""
    data = {"v": value, key: chain(depth)}
    deep, problems = check_bounds(data)
    assert deep == nested_too_deep(data, MAX_JSON_DEPTH)
    assert problems == check_values(data)
    assert (deep is not None) == (depth >= MAX_JSON_DEPTH)


plain_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**64), max_value=2**64),
        st.floats(),
        st.text(max_size=3),
        st.sampled_from(["x" * MAX_STRING_LENGTH, "x" * (MAX_STRING_LENGTH + 1), "\ud800"]),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(plain_values, st.integers(0, 40))
def test_the_quick_look_passes_only_what_the_walk_finds_nothing_in(value: Any, depth: int) -> None:
    """Most bodies skip the walk that names paths: the quick look says "plain" only for a
    value in which the walk would find nothing (not too deep, nothing out of bounds)."""
    data = {"v": value, "deep": chain(depth)}
    walk = values._Walk()
    walk.visit(data, ())
    if values._is_plain(data, 0):
        assert (walk.too_deep, walk.problems) == (None, [])
    assert check_bounds(data) == (walk.too_deep, walk.problems)


def test_mappings_of_other_types_are_walked() -> None:
    """A mapping that is not a plain dict (the JSON reader's) is still checked in full."""

    class Keys(dict[str, Any]):
        pass

    (problem,) = check_values({"a": Keys(big=2**64)})
    assert problem[0] == ("a", "big")
