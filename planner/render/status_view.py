"""`planner status` and `planner history NAME` for people (aligned columns) and scripts
(`--format json`: the rows' `model_dump`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from planner.command_lines import suggested_command
from planner.plan.status import HistoryEntry, StatusRow
from planner.render.output import aligned
from planner.state.records import Hold


def revision_cell(revision_id: str | None, status: str | None) -> str:
    if revision_id is None:
        return "-"
    return f"{revision_id} ({status or '?'})"


def status_lines(rows: Sequence[StatusRow], command_args: Sequence[str] = ()) -> list[str]:
    """One line per managed deployment under a header; a HELD column (and a line on how
    to lift a hold, with the options given: COMMAND_ARGS) only when a rollback holds one
    of them."""
    held = any(row.held is not None for row in rows)
    header = ("NAME", "ID", "ACTIVE REVISION", "LATEST REVISION", "UPDATED", "URL", "DRIFT")
    table: list[tuple[str, ...]] = [header + (("HELD",) if held else ())]
    for row in rows:
        if row.gone:
            cells: tuple[str, ...] = (row.name, row.id, "-", "-", "-", "-", "yes (deleted outside)")
        else:
            latest = "same" if row.latest_revision_id == row.active_revision_id else None
            cells = (
                row.name,
                row.id,
                revision_cell(row.active_revision_id, row.active_status),
                latest or revision_cell(row.latest_revision_id, row.latest_status),
                row.updated_at or "-",
                row.url or "-",
                "yes" if row.drift else "no",
            )
        table.append(cells + ((held_cell(row),) if held else ()))
    lines = aligned(table)
    if held:
        lines.append(held_note(command_args))
    return lines


def held_note(command_args: Sequence[str] = ()) -> str:
    """How a hold is lifted (`planner release NAME`, with the options given)."""
    release = suggested_command("release", "NAME", command_args=command_args)
    return f"Held deployments are not planned, applied or healed until released (`{release}`)."


def held_cell(row: StatusRow) -> str:
    """`rolled back to R since S by B` (the active revision is the redeploy of R: the
    ACTIVE REVISION column); `-`: not held."""
    return "-" if row.held is None else hold_text(row.held)


def hold_text(hold: Hold) -> str:
    """`rolled back to R since S by B`."""
    return f"rolled back to {hold.revision_id} since {hold.since} by {hold.by}"


def empty_status_line(location: str) -> str:
    return f"No deployments in the state ({location} manages nothing)."


def history_lines(
    name: str,
    entries: Sequence[HistoryEntry],
    hold: Hold | None = None,
    command_args: Sequence[str] = (),
) -> list[str]:
    """NAME's revisions newest first: id, created, status (the active one marked, and the
    one a rollback went back to: `held`; the active one is then its redeploy), what
    changed; HOLD: the hold a rollback recorded, said first (its `planner release` with
    the options given: COMMAND_ARGS)."""
    table = [("REVISION", "CREATED", "STATUS", "CHANGED")]
    for entry in entries:
        marks = [word for word, on in (("active", entry.active), ("held", entry.held)) if on]
        status = f"{entry.status} ({', '.join(marks)})" if marks else entry.status
        table.append((entry.id, entry.created_at, status, changed_cell(entry, entries)))
    lines = [f"Revisions of {name}, newest first:", *aligned(table)]
    if hold is None:
        return lines
    release = suggested_command("release", name, command_args=command_args)
    said = f"{name} is held ({hold_text(hold)}): not planned, applied or healed until "
    said += f"`{release}`."
    return [said, *lines]


def changed_cell(entry: HistoryEntry, entries: Sequence[HistoryEntry]) -> str:
    if entry is entries[-1]:
        return "(first revision)"
    return ", ".join(entry.changed) or "(no revision field: a config, secret change or retry)"


def rows_json(rows: Sequence[StatusRow] | Sequence[HistoryEntry]) -> list[dict[str, Any]]:
    return [row.model_dump(mode="json") for row in rows]
