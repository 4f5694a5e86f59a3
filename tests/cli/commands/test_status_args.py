"""`planner status`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.status import StatusArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_workspace_and_the_format_are_kept() -> None:
    """--state and the default text format land in the arguments value."""
    argv = ["status", "--state", "postgresql://h/db"]
    assert parse(build_parser(argv).parse_args(argv)) == StatusArgs(
        WorkspaceOptions(state="postgresql://h/db"), "text"
    )
