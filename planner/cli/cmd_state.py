"""`planner state list | show NAME | rm NAME`: inspect the state, or forget a deployment."""

from __future__ import annotations

import argparse
import json
from typing import Any

from planner.cli.common import (
    add_config_option,
    add_format_option,
    add_lock_timeout_option,
    add_state_option,
    open_state_backend,
    repeated_args,
)
from planner.errors import StateError
from planner.plan.model import suggested_command
from planner.render.console import make_console
from planner.secrets import SENSITIVE
from planner.state.backend import StateBackend
from planner.state.document import StateDocument
from planner.state.records import RecordedDeployment


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("state", parents=parents, help="inspect or edit the state")
    actions = parser.add_subparsers(dest="state_command", metavar="ACTION", required=True)
    listing = _action(actions, parents, "list", "list the managed deployments", run_list)
    add_format_option(listing, ["text", "json"])
    show = _action(actions, parents, "show", "show what is recorded for one deployment", run_show)
    show.add_argument("name", metavar="NAME")
    add_format_option(show, ["text", "json"])
    remove = _action(
        actions, parents, "rm", "forget a deployment (it is not deleted remotely)", run_rm
    )
    remove.add_argument("name", metavar="NAME")
    add_lock_timeout_option(remove)


def _action(
    actions: Any, parents: list[argparse.ArgumentParser], name: str, help: str, func: Any
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, parents=parents, help=help)
    add_config_option(parser)
    add_state_option(parser)
    parser.set_defaults(func=func)
    return parser


def run_list(args: argparse.Namespace) -> int:
    backend = open_state_backend(args)
    doc = backend.read()
    console = make_console()
    if args.format == "json":
        rows = [] if doc is None else [_list_row(r) for r in _sorted(doc)]
        console.print_json(json.dumps(rows))
        return 0
    if doc is None or not doc.deployments:
        console.print(f"No deployments in the state ({_describe_missing(backend, doc)}).")
        return 0
    for line in list_lines(doc):
        console.print(line, markup=False)
    return 0


def run_show(args: argparse.Namespace) -> int:
    doc = _require_state(open_state_backend(args))
    recorded = doc.get(args.name)
    console = make_console()
    if args.format == "json":
        console.print_json(json.dumps(_redacted(recorded)))
        return 0
    for line in show_lines(recorded) + _pending_lines(doc, args.name):
        console.print(line, markup=False)
    return 0


def run_rm(args: argparse.Namespace) -> int:
    backend = open_state_backend(args)
    _require_state(backend)  # before locking: a mistyped --state creates no lock file
    with backend.lock("state rm", timeout=args.lock_timeout):
        doc = _require_state(backend)
        forgotten = doc.forget(args.name)
        backend.write(doc)
    again = suggested_command(
        "import", forgotten.name, forgotten.id, command_args=repeated_args(args)
    )
    console = make_console()
    for line in (
        f"Removed {forgotten.name} (deployment {forgotten.id}) from the state {backend.location}.",
        "The deployment still exists on the control plane; planner no longer manages it.",
        f"To manage it again: {again}",
    ):
        console.print(line, markup=False)
    return 0


def show_lines(recorded: RecordedDeployment) -> list[str]:
    """The text view of one recorded deployment: ids, managed values, secret names."""
    lines = [
        recorded.name,
        f"  id: {recorded.id}",
        f"  latest revision: {recorded.latest_revision_id or '-'}",
        f"  active revision: {recorded.active_revision_id or '-'}",
        f"  updated at: {recorded.updated_at or '-'}",
        "  managed values:",
    ]
    flat = flatten(recorded.managed)
    lines += [f"    {path} = {json.dumps(value)}" for path, value in flat] or ["    (none)"]
    if recorded.secret_digests:
        lines.append("  secrets:")
        lines += [f"    {name} = {SENSITIVE}" for name in sorted(recorded.secret_digests)]
    return lines


def _pending_lines(doc: StateDocument, name: str) -> list[str]:
    intents = doc.intents_for(name)
    if not intents:
        return []
    lines = ["  unfinished operations (started, outcome not recorded):"]
    return lines + [f"    {entry.op} started at {entry.started_at}" for entry in intents]


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted paths to leaf values (lists are leaves), in key order."""
    if not isinstance(value, dict) or (prefix and not value):
        return [(prefix, value)]
    pairs: list[tuple[str, Any]] = []
    for key in sorted(value):
        pairs += flatten(value[key], f"{prefix}.{key}" if prefix else key)
    return pairs


def _require_state(backend: StateBackend) -> StateDocument:
    doc = backend.read()
    if doc is None:
        raise StateError(
            f"no state file at {backend.location}",
            hint="nothing is managed yet (`planner apply` creates the state), "
            "or pass --state PATH / -c FILE to point at another one",
        )
    return doc


def _describe_missing(backend: StateBackend, doc: StateDocument | None) -> str:
    if doc is None:
        return f"no state file at {backend.location}: nothing to show"
    return f"{backend.location} manages nothing"


def _sorted(doc: StateDocument) -> list[RecordedDeployment]:
    return [doc.deployments[name] for name in sorted(doc.deployments)]


def _list_row(recorded: RecordedDeployment) -> dict[str, Any]:
    return {
        "name": recorded.name,
        "id": recorded.id,
        "latest_revision_id": recorded.latest_revision_id,
        "updated_at": recorded.updated_at,
    }


def list_lines(doc: StateDocument) -> list[str]:
    """Aligned columns, unwrapped whatever the terminal width (scripts read this)."""
    rows = [("NAME", "ID", "LAST REVISION", "UPDATED")]
    for recorded in _sorted(doc):
        revision = recorded.latest_revision_id or "-"
        rows.append((recorded.name, recorded.id, revision, recorded.updated_at or "-"))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return ["  ".join(map(str.ljust, row, widths)).rstrip() for row in rows]


def _redacted(recorded: RecordedDeployment) -> dict[str, Any]:
    data = recorded.model_dump(mode="json", exclude={"secret_digests"})
    data["secrets"] = {name: SENSITIVE for name in sorted(recorded.secret_digests)}
    return data
