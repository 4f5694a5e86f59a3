"""`planner config`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.config import ConfigArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_format_defaults_to_toml_and_the_environment_is_kept() -> None:
    """Without --format the config prints as TOML; --env is kept as given."""
    argv = ["config", "--env", "staging"]
    assert parse(build_parser(argv).parse_args(argv)) == ConfigArgs(
        WorkspaceOptions(env="staging"), "toml"
    )
