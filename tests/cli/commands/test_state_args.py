"""`planner state`'s arguments, parsed as plain functions."""

from __future__ import annotations

from planner.cli.commands.state import StateAction, StateArgs, parse
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions


def parsed(*words: str) -> StateArgs:
    argv = ["state", *words]
    return parse(build_parser(argv).parse_args(argv))


def test_each_action_keeps_its_own_options() -> None:
    """The action's name and its own options land in the value; the rest keep defaults."""
    assert parsed("show", "api", "--format", "json") == StateArgs(
        "show", StateAction(format="json", name="api"), WorkspaceOptions()
    )
    assert parsed("mv", "a", "b", "--lock-lease", "4").options == StateAction(
        old="a", new="b", lock_lease=4.0
    )
    assert parsed("push", "f.json", "--force").options == StateAction(file="f.json", force=True)
    assert parsed("rollback", "3", "--state", "s.json") == StateArgs(
        "rollback", StateAction(serial=3), WorkspaceOptions(state="s.json")
    )
