"""The end of an apply for a terminal or a log: the result table, failures, the summary.

Pure: returns a string. Only deployments something was done to get a row (no-ops do
not); revision ids are shortened to their first 8 characters, like git.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.text import Text

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.render.console import make_console, print_plain
from planner.render.lines import recovered_headline
from planner.render.safe import visible
from planner.render.summary import apply_summary

if TYPE_CHECKING:  # rich.table only for a terminal: a log is written without it
    from rich.table import Table

_HEADERS = ("Deployment", "Action", "Revision", "Status", "Time")
_STYLES = {
    Outcome.SUCCEEDED: "green",
    Outcome.FAILED: "red",
    Outcome.SUBMITTED: "yellow",
    Outcome.NOT_STARTED: "dim",
}


def render_apply_result(result: ApplyResult, *, color: bool = False) -> str:
    out = io.StringIO()
    console = make_console(out, force_terminal=color)
    if result.recovered:
        console.print(Text(recovered_headline(result.recovered) + "\n", style="bold"))
    rows = [r for r in result.results if r.shown]
    if rows and color:
        console.print(result_table(rows))
    elif rows:  # a log: the same columns without rich's layout (0.4 s per 1,000 rows)
        print_plain(console, plain_table(rows))
    for row in result.failed:
        failure = visible(f"{row.name}: {row.error or row.status}", keep="\n")
        console.print(Text.assemble(("✗ ", "red"), failure))
    style = "red" if result.failed else "yellow" if result.interrupted else "green"
    console.print(Text(apply_summary(result), style=f"bold {style}"))
    return out.getvalue()


def result_table(rows: list[DeploymentResult]) -> Table:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for column in _HEADERS:
        table.add_column(column, justify="right" if column == "Time" else "left")
    for row in rows:
        table.add_row(
            Text(row.name),
            Text(action_text(row)),
            Text(short_id(row.revision_id)),
            Text(visible(row.status), style=_STYLES[row.outcome]),
            Text(f"{row.seconds:.1f}s"),
        )
    return table


def plain_table(rows: list[DeploymentResult]) -> str:
    """`result_table` as plain text: columns two spaces apart, Time right-aligned."""
    cells = [_HEADERS] + [
        (
            row.name,
            action_text(row),
            short_id(row.revision_id),
            visible(row.status),
            f"{row.seconds:.1f}s",
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(_HEADERS))]
    return "\n".join(
        "  ".join(
            [
                *(c.ljust(w) for c, w in zip(line[:-1], widths[:-1], strict=True)),
                line[-1].rjust(widths[-1]),
            ]
        )
        for line in cells
    )


def action_text(row: DeploymentResult) -> str:
    """`+ create`; a rollout an earlier apply started, waited for: `… rollout`."""
    return "… rollout" if row.rollout else f"{row.action.symbol} {row.action.value}"


def short_id(value: str | None) -> str:
    return value[:8] if value else "-"
