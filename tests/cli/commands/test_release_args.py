"""`planner release`'s arguments, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.release import ReleaseArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlanError


def parsed(*words: str) -> ReleaseArgs:
    argv = ["release", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_name_the_state_and_the_lock_options_are_kept() -> None:
    """NAME, -c, --env, --state and the lock's wait and lease land in the value."""
    args = parsed(
        "api", "-c", "p.toml", "--env", "prod", "--state", "s.json", "--lock-timeout", "3"
    )
    assert (args.name, args.lock_timeout) == ("api", 3.0)
    assert (args.workspace.config, args.workspace.env, args.workspace.state) == (
        "p.toml",
        "prod",
        "s.json",
    )


def test_release_takes_no_endpoint() -> None:
    """A release writes the state only: --base-url is not one of its options."""
    with pytest.raises(SystemExit):
        parsed("api", "--base-url", "http://127.0.0.1:1")


def test_an_empty_name_is_refused() -> None:
    """An empty NAME is a usage error."""
    with pytest.raises(PlanError, match="needs the NAME"):
        parsed("")
