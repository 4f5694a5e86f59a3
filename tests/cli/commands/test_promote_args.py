"""`planner promote`'s arguments and the rule that combines its flags, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.promote import PromoteArgs, parse
from planner.cli.main import build_parser
from planner.errors import PromotionError


def parsed(*words: str) -> PromoteArgs:
    argv = ["promote", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_options_are_kept() -> None:
    """--from, --to, --only (in order, once each), --write, -c, --state and --format land
    in the value."""
    args = parsed(
        "--from", "staging", "--to", "prod", "--only", "b", "--only", "a", "--only", "b",
        "--write", "-c", "fleet.toml", "--state", "s.json", "--format", "json",
    )  # fmt: skip
    assert (args.from_env, args.to_env, args.only) == ("staging", "prod", ("b", "a"))
    assert (args.write, args.format) == (True, "json")
    assert (args.workspace.config, args.workspace.state) == ("fleet.toml", "s.json")


def test_the_defaults_show_the_diff_of_every_deployment() -> None:
    """Without --write and --only: nothing written, every deployment, text output."""
    args = parsed("--from", "dev", "--to", "prod")
    assert (args.write, args.only, args.format) == (False, (), "text")
    assert args.workspace.env is None and args.workspace.var == ()


def test_one_environment_twice_is_refused() -> None:
    """--from and --to naming one environment is an error naming it."""
    with pytest.raises(PromotionError, match="--from and --to are both prod"):
        parsed("--from", "prod", "--to", "prod")


@pytest.mark.parametrize(
    ("words", "missing"), [(("--to", "prod"), "--from"), (("--from", "dev"), "--to")]
)
def test_both_environments_are_required(
    words: tuple[str, ...], missing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Leaving out --from or --to is a usage error (exit 1, as every usage error)."""
    argv = ["promote", *words]
    with pytest.raises(SystemExit) as exited:
        build_parser(argv).parse_args(argv)
    assert exited.value.code == 1
    assert missing in capsys.readouterr().err


def test_the_environment_options_of_plan_are_not_taken(capsys: pytest.CaptureFixture[str]) -> None:
    """--env makes no sense beside --from/--to: it is not an option of promote."""
    argv = ["promote", "--from", "dev", "--to", "prod", "--env", "dev"]
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    assert "--env" in capsys.readouterr().err
