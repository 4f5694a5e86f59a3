"""`planner repos`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.repos import ReposArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_integration_and_the_format_are_kept() -> None:
    """INTEGRATION_ID, --base-url and --format toml land in the arguments value."""
    argv = ["repos", "int-1", "--base-url", "http://127.0.0.1:9", "--format", "toml"]
    assert parse(build_parser(argv).parse_args(argv)) == ReposArgs(
        "int-1", WorkspaceOptions(base_url="http://127.0.0.1:9"), "toml"
    )
