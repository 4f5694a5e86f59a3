"""`planner destroy`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.destroy import parse
from planner.cli.main import build_parser


def test_the_run_options_are_kept() -> None:
    """--auto-approve, --no-wait and --lock-timeout land in the run options."""
    argv = ["destroy", "--auto-approve", "--no-wait", "--lock-timeout", "3"]
    options = parse(build_parser(argv).parse_args(argv)).options
    assert (options.auto_approve, options.no_wait, options.lock_timeout) == (True, True, 3.0)
