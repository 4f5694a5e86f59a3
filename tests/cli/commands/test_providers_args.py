"""`planner providers`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.providers import ProvidersArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_endpoint_and_the_format_are_kept() -> None:
    """--base-url and --format json land in the arguments value."""
    argv = ["providers", "--base-url", "http://127.0.0.1:9", "--format", "json"]
    assert parse(build_parser(argv).parse_args(argv)) == ProvidersArgs(
        WorkspaceOptions(base_url="http://127.0.0.1:9"), "json"
    )
