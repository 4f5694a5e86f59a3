"""`planner unlock`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.unlock import UnlockArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_lock_id_and_the_state_are_kept() -> None:
    """LOCK_ID and --state land in the arguments value."""
    argv = ["unlock", "abc123", "--state", "s.json"]
    assert parse(build_parser(argv).parse_args(argv)) == UnlockArgs(
        "abc123", WorkspaceOptions(state="s.json")
    )
