"""`planner validate`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.validate import ValidateArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def test_the_config_and_environment_are_read_into_the_workspace_options() -> None:
    """`-c`, `--env` and `--var` land in the frozen workspace options, in order."""
    argv = ["validate", "-c", "x.toml", "--env", "prod", "--var", "a=1", "--var", "b=2"]
    args = parse(build_parser(argv).parse_args(argv))
    assert args == ValidateArgs(
        WorkspaceOptions(config="x.toml", env="prod", var=(("a", "1"), ("b", "2")))
    )
