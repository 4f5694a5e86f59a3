"""`planner status` and `planner history NAME` for people (aligned columns) and scripts
(`--format json`: the rows' `model_dump`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from planner.plan.status import HistoryEntry, StatusRow
from planner.render.output import aligned


def revision_cell(revision_id: str | None, status: str | None) -> str:
    if revision_id is None:
        return "-"
    return f"{revision_id} ({status or '?'})"


def status_lines(rows: Sequence[StatusRow]) -> list[str]:
    """One line per managed deployment under a header."""
    table = [("NAME", "ID", "ACTIVE REVISION", "LATEST REVISION", "UPDATED", "URL", "DRIFT")]
    for row in rows:
        if row.gone:
            table.append((row.name, row.id, "-", "-", "-", "-", "yes (deleted outside)"))
            continue
        latest = "same" if row.latest_revision_id == row.active_revision_id else None
        table.append(
            (
                row.name,
                row.id,
                revision_cell(row.active_revision_id, row.active_status),
                latest or revision_cell(row.latest_revision_id, row.latest_status),
                row.updated_at or "-",
                row.url or "-",
                "yes" if row.drift else "no",
            )
        )
    return aligned(table)


def empty_status_line(location: str) -> str:
    return f"No deployments in the state ({location} manages nothing)."


def history_lines(name: str, entries: Sequence[HistoryEntry]) -> list[str]:
    """NAME's revisions newest first: id, created, status (active marked), what changed."""
    table = [("REVISION", "CREATED", "STATUS", "CHANGED")]
    for entry in entries:
        status = f"{entry.status} (active)" if entry.active else entry.status
        table.append((entry.id, entry.created_at, status, changed_cell(entry, entries)))
    return [f"Revisions of {name}, newest first:", *aligned(table)]


def changed_cell(entry: HistoryEntry, entries: Sequence[HistoryEntry]) -> str:
    if entry is entries[-1]:
        return "(first revision)"
    return ", ".join(entry.changed) or "(no revision field: a config, secret change or retry)"


def rows_json(rows: Sequence[StatusRow] | Sequence[HistoryEntry]) -> list[dict[str, Any]]:
    return [row.model_dump(mode="json") for row in rows]
