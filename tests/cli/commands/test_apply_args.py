"""`planner apply`'s arguments and the rules that combine its flags, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.apply import ApplyArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlanError


def parsed(*words: str) -> ApplyArgs:
    argv = ["apply", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_selection_and_the_run_options_are_kept() -> None:
    """--only, --exclude, --replace, --parallelism and --auto-approve land in the value."""
    args = parsed("--only", "a", "--only", "b", "--exclude", "c", "--replace", "a")
    assert (args.only, args.exclude, args.replace) == (("a", "b"), ("c",), ("a",))
    approved = parsed("--auto-approve", "--parallelism", "7", "--format", "json").options
    assert (approved.auto_approve, approved.parallelism, approved.format) == (True, 7, "json")


@pytest.mark.parametrize("flag", ["--only", "--exclude", "--replace"])
def test_a_saved_plan_takes_no_selection(flag: str) -> None:
    """A saved plan is applied exactly: a selection with it is refused."""
    with pytest.raises(PlanError, match="cannot be used with a saved plan"):
        parsed("p.json", flag, "a")


@pytest.mark.parametrize("words", [("p.json",), ("--replace", "a")])
def test_refresh_only_takes_no_saved_plan_and_no_replace(words: tuple[str, ...]) -> None:
    """--refresh-only records drift: a saved plan or --replace with it is refused."""
    with pytest.raises(PlanError, match="--refresh-only cannot be combined"):
        parsed("--refresh-only", *words)


def test_refresh_only_alone_and_a_saved_plan_alone_are_accepted() -> None:
    """Each of the two on its own parses."""
    assert parsed("--refresh-only").refresh_only
    assert parsed("p.json").planfile == "p.json"
