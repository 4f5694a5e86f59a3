"""`planner reconcile`'s arguments, parsed as plain functions."""

from __future__ import annotations

from planner.cli.commands.reconcile import DEFAULT_LISTEN, ReconcileArgs, parse
from planner.cli.main import build_parser


def parsed(*words: str) -> ReconcileArgs:
    argv = ["reconcile", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_the_controller_options_are_kept() -> None:
    """--interval, --mode, --prune, --max-changes and --wait-timeout land in the options."""
    options = parsed(
        "--interval", "5", "--mode", "detect", "--prune", "--max-changes", "3",
        "--wait-timeout", "9",
    ).options  # fmt: skip
    assert (options.interval, options.mode, options.prune) == (5.0, "detect", True)
    assert (options.max_changes, options.wait_timeout) == (3, 9.0)


def test_where_it_listens_follows_once_and_off() -> None:
    """HTTP is served on the default address unless --once, and never with --listen off."""
    assert parsed().options.listen_address == DEFAULT_LISTEN
    assert parsed("--once").options.listen_address is None
    assert parsed("--once", "--listen", "127.0.0.1:1").options.listen_address == "127.0.0.1:1"
    assert parsed("--listen", "off").options.listen_address is None
