"""`planner plan`'s arguments and the rules that combine its flags, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.plan import PlanArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlanError


def parsed(*words: str) -> PlanArgs:
    argv = ["plan", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_options_are_kept() -> None:
    """--out, --detailed-exitcode, the selection, --format and --verbose land in the value."""
    args = parsed("--out", "p.json", "--detailed-exitcode", "--only", "a", "--format", "json")
    assert (args.out, args.detailed_exitcode, args.only) == ("p.json", True, ("a",))
    assert (args.output.format, parsed("--verbose").output.verbose) == ("json", True)


@pytest.mark.parametrize("flag", [("--destroy",), ("--replace", "a")])
def test_refresh_only_takes_no_change(flag: tuple[str, ...]) -> None:
    """--refresh-only shows drift only: --destroy or --replace with it is refused, naming it."""
    with pytest.raises(PlanError, match=f"--refresh-only cannot be combined with {flag[0]}"):
        parsed("--refresh-only", *flag)


def test_refresh_only_saves_nothing() -> None:
    """--refresh-only with --out is refused, and the hint says what records drift."""
    with pytest.raises(PlanError, match="with --out") as refused:
        parsed("--refresh-only", "--out", "p.json")
    assert "apply --refresh-only" in (refused.value.hint or "")


def test_destroy_and_replace_without_refresh_only_are_accepted() -> None:
    """The rules bind --refresh-only only."""
    assert parsed("--destroy", "--replace", "a", "--out", "p.json").destroy
