"""Writing a command's output: lines, JSON and tables, printed literally through one console
(`planner.render.console.make_console`) per stream, every control or bidi character
escaped (`planner.render.safe.visible`; JSON escapes its own)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from planner.render.console import make_console
from planner.render.safe import visible

if TYPE_CHECKING:  # rich.table is imported by the commands that print a table
    from rich.table import Table


def write_lines(console: Console, lines: Iterable[str]) -> None:
    """Each line as it is (no markup, no highlighting), but made `visible`."""
    for line in lines:
        console.print(visible(line), markup=False)


def write_warnings(warnings: Iterable[str]) -> None:
    """Each warning as a `Warning: ...` line on stderr."""
    console = make_console(stderr=True)
    write_lines(console, (f"Warning: {warning}" for warning in warnings))


def write_notice(lines: Iterable[str]) -> None:
    """Lines on stderr, as they are (e.g. who holds the lock a command waits for)."""
    write_lines(make_console(stderr=True), lines)


def write_json(console: Console, value: Any) -> None:
    """Pretty JSON (indent 2), as `json.dumps` writes it, on its own line."""
    console.out(json.dumps(value, indent=2), highlight=False)


def folded_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A table whose cells fold, never cut (ids and urls stay whole), and print
    literally (a name like `[x]` is not markup)."""
    from rich.table import Table

    table = Table()
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*(Text(visible(value)) for value in row))
    return table


def aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Columns padded to their widest cell, two spaces apart, never wrapped; each cell
    made `visible` first, so an escape keeps its column."""
    cells = [[visible(cell) for cell in row] for row in rows]
    widths = [max(len(row[column]) for row in cells) for column in range(len(cells[0]))]
    return ["  ".join(map(str.ljust, row, widths)).rstrip() for row in cells]
