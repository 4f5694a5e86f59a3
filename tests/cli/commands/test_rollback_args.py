"""`planner rollback`'s arguments and their rules, as plain functions."""

from __future__ import annotations

import pytest

from planner.cli.commands.rollback import RollbackArgs, parse
from planner.cli.main import build_parser
from planner.errors import PlanError


def parsed(*words: str) -> RollbackArgs:
    argv = ["rollback", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_name_the_revision_and_the_run_options_are_kept() -> None:
    """NAME, --to and the confirmation, wait, lock and format flags land in the value."""
    args = parsed(
        "api",
        "--to",
        "r1",
        "--auto-approve",
        "--no-wait",
        "--wait-timeout",
        "90",
        "--lock-timeout",
        "5",
        "--format",
        "json",
        "--env",
        "prod",
        "--state",
        "s.json",
    )
    assert (args.name, args.to) == ("api", "r1")
    options = args.options
    assert (options.auto_approve, options.no_wait, options.wait_timeout) == (True, True, 90.0)
    assert (options.lock_timeout, options.format, options.parallelism) == (5.0, "json", 1)
    assert (args.workspace.env, args.workspace.state) == ("prod", "s.json")


def test_the_defaults_ask_wait_and_pick_the_revision() -> None:
    """Without flags: no --to (the default target), a question, a wait of 1800 s, text."""
    options = parsed("api").options
    assert parsed("api").to is None
    assert (options.auto_approve, options.no_wait, options.wait_timeout) == (False, False, 1800.0)
    assert options.format == "text"


@pytest.mark.parametrize(
    ("words", "message"),
    [(("",), "needs the NAME"), (("api", "--to", " "), "--to needs a revision id")],
)
def test_an_empty_name_or_revision_is_refused(words: tuple[str, ...], message: str) -> None:
    """An empty NAME or `--to` is a usage error naming what is missing."""
    with pytest.raises(PlanError, match=message):
        parsed(*words)


def test_a_negative_wait_timeout_is_refused() -> None:
    """--wait-timeout takes seconds >= 0, as apply's does (a usage error, exit 1)."""
    with pytest.raises(SystemExit) as stopped:
        parsed("api", "--wait-timeout", "-1")
    assert stopped.value.code == 1
