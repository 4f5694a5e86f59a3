"""`planner show`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.show import ShowArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import OutputOptions, WorkspaceOptions


def test_the_plan_file_state_and_format_are_kept() -> None:
    """PLANFILE, --state, --format and --verbose land in the arguments value."""
    argv = ["show", "p.json", "--state", "s.json", "--format", "markdown", "--verbose"]
    assert parse(build_parser(argv).parse_args(argv)) == ShowArgs(
        "p.json", WorkspaceOptions(state="s.json"), OutputOptions("markdown", verbose=True)
    )
