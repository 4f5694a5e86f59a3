"""The state as people and scripts read it (`planner state list | show | rm | history`).

Secret values are never in the state; their names print with the SENSITIVE marker.
"""

from __future__ import annotations

from typing import Any

from planner.plan.changes import show
from planner.render.output import aligned
from planner.secrets import SENSITIVE
from planner.state.document import StateDocument
from planner.state.location import is_postgres_url
from planner.state.records import RecordedDeployment
from planner.state.versions import StateVersion


def sorted_deployments(doc: StateDocument) -> list[RecordedDeployment]:
    return [doc.deployments[name] for name in sorted(doc.deployments)]


def list_rows(doc: StateDocument | None) -> list[dict[str, Any]]:
    """`state list --format json`: one object per deployment, by name."""
    return [] if doc is None else [_list_row(r) for r in sorted_deployments(doc)]


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
    for recorded in sorted_deployments(doc):
        revision = recorded.latest_revision_id or "-"
        rows.append((recorded.name, recorded.id, revision, recorded.updated_at or "-"))
    return aligned(rows)


def empty_list_line(location: object, doc: StateDocument | None) -> str:
    """What `state list` says when nothing is managed (no state file, or an empty one)."""
    if doc is None:
        kind = "state" if is_postgres_url(str(location)) else "state file"
        why = f"no {kind} at {location}: nothing to show"
    else:
        why = f"{location} manages nothing"
    return f"No deployments in the state ({why})."


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
    lines += [f"    {path} = {show(value)}" for path, value in flat] or ["    (none)"]
    if recorded.secret_digests:
        lines.append("  secrets:")
        lines += [f"    {name} = {SENSITIVE}" for name in sorted(recorded.secret_digests)]
    return lines


def pending_lines(doc: StateDocument, name: str) -> list[str]:
    """The operations started on NAME whose outcome the state has not recorded."""
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


def redacted(recorded: RecordedDeployment) -> dict[str, Any]:
    """`state show --format json`: the record, secret digests replaced by their names."""
    data = recorded.model_dump(mode="json", exclude={"secret_digests"})
    data["secrets"] = {name: SENSITIVE for name in sorted(recorded.secret_digests)}
    return data


def removed_lines(forgotten: RecordedDeployment, location: object, again: str) -> list[str]:
    """What `state rm` says: what was forgotten, that it still runs, how to manage it again."""
    return [
        f"Removed {forgotten.name} (deployment {forgotten.id}) from the state {location}.",
        "The deployment still exists on the control plane; planner no longer manages it.",
        f"To manage it again: {again}",
    ]


def history_rows(versions: list[StateVersion]) -> list[dict[str, Any]]:
    """`state history --format json`: one object per kept version, newest first."""
    return [version.model_dump(mode="json") for version in versions]


def history_lines(location: object, versions: list[StateVersion]) -> list[str]:
    """Aligned columns of the kept versions, newest (the current one) first."""
    if not versions:
        return [f"No versions: there is no state at {location} yet."]
    rows = [("SERIAL", "CREATED", "WRITTEN BY", "DEPLOYMENTS", "CHECKSUM")]
    for version in versions:
        checksum = version.checksum.removeprefix("sha256:")[:12]
        who = version.written_by or "-"
        rows.append((str(version.serial), version.created, who, str(version.deployments), checksum))
    return aligned(rows)
