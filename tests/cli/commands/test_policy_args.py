"""`planner policy test`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.policy import PolicyTestArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_policy_test_takes_the_config_and_the_format() -> None:
    """`policy test -c FILE --format json` gives that config and the JSON format."""
    argv = ["policy", "test", "-c", "p.toml", "--format", "json"]
    assert parse(build_parser(argv).parse_args(argv)) == PolicyTestArgs(
        WorkspaceOptions(config="p.toml"), "json"
    )
