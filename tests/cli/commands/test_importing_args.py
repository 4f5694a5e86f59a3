"""`planner import`'s arguments and the rules that combine its flags, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.importing import ImportArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlannerError


def parsed(*words: str) -> ImportArgs:
    argv = ["import", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_one_import_takes_a_name_and_an_id() -> None:
    """NAME DEPLOYMENT_ID is one import, with its lock options."""
    args = parsed("api", "dep-1", "--lock-timeout", "2")
    assert (args.name, args.deployment_id, args.adopt_all) == ("api", "dep-1", False)
    assert args.options.lock_timeout == 2.0


def test_all_takes_the_config_to_generate() -> None:
    """--all --generate-config FILE with its filters is the adopt-all form."""
    args = parsed("--all", "--generate-config", "g.toml", "--name-contains", "x", "--force")
    assert args.adopt_all and args.options.generate_config == "g.toml"
    assert (args.options.name_contains, args.options.force) == ("x", True)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (("--all", "api", "dep-1"), "give no NAME or ID"),
        (("--all",), "--all needs --generate-config"),
        (("api", "dep-1", "--force"), "--force goes with --all"),
        (("api", "dep-1", "--generate-config", "g.toml"), "--generate-config goes with --all"),
        (("api",), "give NAME and DEPLOYMENT_ID"),
        ((), "give NAME and DEPLOYMENT_ID"),
    ],
)
def test_the_flags_that_do_not_go_together_are_refused(
    words: tuple[str, ...], message: str
) -> None:
    """Each mix of the two forms, or half of one, is refused with the rule it breaks."""
    with pytest.raises(PlannerError, match=message):
        parsed(*words)
