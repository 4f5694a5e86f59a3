"""`planner state history | rollback SERIAL | pull | push FILE`: the versions of a state.

Pull prints the current state exactly as a state file holds it, so `pull > FILE` then
`push FILE` (to another backend: a file and PostgreSQL alike) moves a state. Push and
rollback are writes under the state lock, with the usual compare-and-swap on the serial.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.cli.options import (
    Options,
    WorkspaceOptions,
    add_format_option,
    add_lock_options,
)
from planner.errors import StateError
from planner.files import read_user_text
from planner.state.lease import DEFAULT_LEASE_SECONDS

# The state and the renderers are imported where an action runs: parsing the command line
# (`planner state history --help`) needs none of them.
if TYPE_CHECKING:
    from planner.state.backend import StateBackend
    from planner.state.document import StateDocument

Action = Callable[[str, str], argparse.ArgumentParser]


@dataclass(frozen=True)
class StateAction(Options):
    """The options of one `planner state` action (each takes some of them)."""

    format: str = "text"
    name: str = ""
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    serial: int = 0
    file: str = ""
    force: bool = False
    old: str = ""
    new: str = ""


def lock_arguments(action: StateAction) -> dict[str, Any]:
    """How a state action takes the lock: its --lock-timeout and --lock-lease, and the
    holder named on stderr while it waits."""
    from planner.render.output import write_notice

    return {"timeout": action.lock_timeout, "lease": action.lock_lease, "on_wait": write_notice}


def register_versions(action: Action) -> None:
    """Add the version actions to `planner state` (ACTION(name, help) makes one)."""
    history = action("history", "list the kept versions of the state")
    add_format_option(history, ["text", "json"])
    back = action("rollback", "write an old version back as a new one")
    back.add_argument("serial", type=int, metavar="SERIAL", help="the version to restore")
    add_lock_options(back)
    action("pull", "print the current state as JSON (a state file's content)")
    upload = action("push", "upload a state file as the next version")
    upload.add_argument("file", metavar="FILE", help="a state file (e.g. from `state pull`)")
    upload.add_argument(
        "--force",
        action="store_true",
        help="push over another lineage, an older serial or diverged content",
    )
    add_lock_options(upload)


def run_history(backend: StateBackend, action: StateAction, _: WorkspaceOptions) -> int:
    from planner.render.console import make_console
    from planner.render.output import write_lines
    from planner.render.state_view import history_lines, history_rows

    versions = backend.history()
    console = make_console()
    if action.format == "json":
        console.print_json(json.dumps(history_rows(versions)))
    else:
        write_lines(console, history_lines(backend.location, versions))
    return 0


def run_rollback(backend: StateBackend, action: StateAction, _: WorkspaceOptions) -> int:
    from planner.state.versions import rollback

    with backend.lock("state rollback", **lock_arguments(action)):
        written = rollback(backend, action.serial)
    say(
        f"Rolled back the state {backend.location} to version {action.serial}: written as "
        f"version {written.serial} ({len(written.deployments)} deployments)."
    )
    return 0


def run_pull(backend: StateBackend, action: StateAction, _: WorkspaceOptions) -> int:
    from planner.render.safe import visible_json
    from planner.state.document import dump_state

    doc = backend.read()
    if doc is None:
        raise StateError(f"no state at {backend.location}: nothing to pull")
    sys.stdout.write(visible_json(dump_state(doc)))  # the file's values, bidi escaped
    return 0


def run_push(backend: StateBackend, action: StateAction, _: WorkspaceOptions) -> int:
    from planner.state.versions import push

    doc = read_state_file(Path(action.file))
    with backend.lock("state push", **lock_arguments(action)):
        written = push(backend, doc, force=action.force)
    if written is None:
        say(f"The state {backend.location} holds this version already: nothing pushed.")
    else:
        say(
            f"Pushed {action.file} to the state {backend.location} as version {written.serial} "
            f"({len(written.deployments)} deployments)."
        )
    return 0


def read_state_file(path: Path) -> StateDocument:
    """A state file a user names, checked (format, checksum) like any state."""
    from planner.state.document import parse_state
    from planner.state.localfile import MAX_STATE_BYTES

    try:
        text = read_user_text(path, "state file", StateError, MAX_STATE_BYTES)
    except FileNotFoundError:
        raise StateError(f"{path}: state file not found") from None
    return parse_state(text, source=str(path))


def say(line: str) -> None:
    from planner.render.console import make_console

    make_console().print(line, markup=False)


VERSION_ACTIONS: dict[str, Callable[[StateBackend, StateAction, WorkspaceOptions], int]] = {
    "history": run_history,
    "rollback": run_rollback,
    "pull": run_pull,
    "push": run_push,
}
