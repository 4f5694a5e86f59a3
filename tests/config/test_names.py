"""Plain names: environment and state names never climb out of the state directory."""

from __future__ import annotations

import pytest

from planner.config.names import check_plain_name, is_plain_name


@pytest.mark.parametrize("name", ["dev", "prod", "pr-123", "eu.west_1", "A1"])
def test_plain_names_are_accepted(name: str) -> None:
    """Letters, digits, '.', '_' and '-' starting with a letter or digit are plain."""
    assert is_plain_name(name)
    assert check_plain_name(name) == name


@pytest.mark.parametrize(
    "name", ["../../../outside", "a/b", "a..b", "..", ".hidden", "-x", "a\x00b", "", "x" * 201]
)
def test_names_that_could_leave_a_directory_are_refused(name: str) -> None:
    """'/', '..', NUL, a leading dot or dash, empty or overlong names are not plain."""
    assert not is_plain_name(name)
    with pytest.raises(ValueError, match="plain name"):
        check_plain_name(name)
