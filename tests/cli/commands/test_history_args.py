"""`planner history`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.history import HistoryArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_name_and_the_format_are_kept() -> None:
    """NAME and --format json land in the arguments value; the endpoint flag too."""
    argv = ["history", "api", "--format", "json", "--base-url", "http://127.0.0.1:1"]
    assert parse(build_parser(argv).parse_args(argv)) == HistoryArgs(
        "api", WorkspaceOptions(base_url="http://127.0.0.1:1"), "json"
    )
