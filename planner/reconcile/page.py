"""The read-only status page at `/`: one self-contained HTML document from a snapshot.

Everything a person needs on one screen: the leader, every deployment with its health,
drift and last change (and, when a rollback holds one, a Hold column: on which revision,
since when, by whom, and the command that lifts it), the recent cycles with their
result and duration, and the last plan (its markdown view as HTML,
`planner.render.html`). Every value is escaped (HTML, and control and bidi characters as
every view escapes them: `shown`); the CSS is inline; there is no script, no form, no
link and no asset from outside the process, and the server's Content-Security-Policy
forbids them anyway. It refreshes itself every `REFRESH_SECONDS`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import escape

from planner.reconcile.status import (
    CycleRecord,
    DeploymentRow,
    HoldView,
    StatusSnapshot,
    readiness,
)
from planner.render.html import markdown_to_html
from planner.render.safe import visible

REFRESH_SECONDS = 15
_GOOD = frozenset({"ok", "healthy", "healed", "in sync", "deployed"})
_MUTED = frozenset({"standby", "unknown", "skipped"})
_BAD = re.compile(r"fail|error|missing|interrupted")

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;
color:#1f2328;background:#fff}
h1{font-size:1.4rem;margin:0 0 .3rem}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
table{border-collapse:collapse;width:100%}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;
text-align:left;vertical-align:top}th{background:#f6f8fa}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:.6rem;overflow:auto}
.meta{color:#59636e}.num{text-align:right}
.good{color:#1a7f37}.warn{color:#9a6700}.bad{color:#d1242f;font-weight:600}.muted{color:#59636e}
blockquote{margin:.6rem 0;padding:.2rem .8rem;border-left:4px solid #d0d7de}
blockquote.warning{border-color:#9a6700}blockquote.caution{border-color:#d1242f}
blockquote.note{border-color:#0969da}blockquote.important{border-color:#8250df}
.held{color:#8250df;font-weight:600}
details{margin:.4rem 0}summary{cursor:pointer}
span.add{color:#1a7f37}span.del{color:#d1242f}span.drift{color:#9a6700}span.note{color:#59636e}
"""


def render_page(snapshot: StatusSnapshot, *, now: datetime) -> str:
    """The status page of SNAPSHOT as seen at NOW."""
    body = "\n".join(
        (
            header(snapshot, now=now),
            deployments_section(snapshot),
            cycles_section(snapshot.cycles),
            plan_section(snapshot.last_plan),
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>planner reconcile</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def header(snapshot: StatusSnapshot, *, now: datetime) -> str:
    if snapshot.leader_holder is None:
        leader = "no leader yet"
    else:
        role = "this replica" if snapshot.is_leader else "another replica; this one stands by"
        leader = f"<code>{shown(snapshot.leader_holder)}</code> ({role})"
    _, ready = readiness(snapshot)  # what /readyz answers
    return (
        "<header>\n<h1>planner reconcile</h1>\n"
        f'<p id="leader">Leader: {leader}</p>\n'
        f'<p class="meta">This replica is {shown(ready)}. Shown at {when(now)}; '
        f"the page refreshes every {REFRESH_SECONDS} s.</p>\n</header>"
    )


def deployments_section(snapshot: StatusSnapshot) -> str:
    """The deployments the last cycle that planned saw; when the latest cycles failed, a
    note saying so above them (or in their place when no cycle has planned)."""
    rows = snapshot.deployments
    columns: tuple[str, ...] = ("Deployment", "Remote name", "Health", "Drift", "Last change", "At")
    holds = any(row.hold is not None for row in rows)
    if holds:
        columns += ("Hold",)
    body = [deployment_row(row, holds=holds) for row in rows]
    section = _section(
        "deployments", f"Deployments ({len(rows)})", columns, body, no_deployments(snapshot)
    )
    failed = snapshot.failed_cycles
    if not rows or not failed:
        return section
    count = "cycle" if len(failed) == 1 else f"{len(failed)} cycles"
    seen = f"the cycle of {when(snapshot.deployments_at)}" if snapshot.deployments_at else ""
    note = (
        f'<p class="warn">The last {count} failed (the latest: {shown(failed[0].message)}); '
        f"the deployments are as {seen or 'the last cycle that planned'} saw them.</p>"
    )
    return section.replace("<table>", note + "\n<table>", 1)


def no_deployments(snapshot: StatusSnapshot) -> str:
    """What the deployments table says when it has no row: why there is none."""
    if not snapshot.cycles:
        return "No deployment yet: the first cycle has not planned."
    failed = snapshot.failed_cycles
    if failed:
        count = "cycle" if len(failed) == 1 else f"{len(failed)} cycles"
        latest = shown(failed[0].message)
        return f"No deployment known: the last {count} failed before planning ({latest})."
    if snapshot.cycles[0].result == "standby":
        return "No deployment known: this replica stands by; the leader plans."
    return "No deployment: the last cycle planned none."


def deployment_row(row: DeploymentRow, *, holds: bool = False) -> str:
    """One deployment's row; HOLDS: the table has a Hold column (a held deployment's
    drift is not compared: its Drift cell says it is held)."""
    if row.hold is not None:
        drift_cell = '<td class="held">held</td>'
    else:
        drift = "drifted" if row.drifted else "in sync"
        drift_cell = f'<td class="{tone(drift)}">{"⚠ " if row.drifted else ""}{drift}</td>'
    hold_cell = f"<td>{hold_text(row.hold)}</td>" if holds else ""
    return (
        f"<tr><td><code>{shown(row.address)}</code></td><td>{shown(row.remote_name)}</td>"
        f"{_cell(row.health)}{drift_cell}"
        f"<td>{shown(row.last_change or '—')}</td><td>{when(row.last_change_at)}</td>"
        f"{hold_cell}</tr>"
    )


def hold_text(hold: HoldView | None) -> str:
    """A hold as the Hold cell shows it (HTML); `—` when the deployment is not held."""
    if hold is None:
        return "—"
    would = f"the config would change {hold.changes} field(s) once released; "
    return (
        f'<span class="held">held, rolled back to <code>{shown(hold.revision)}</code></span> '
        f"since {shown(hold.since)} by {shown(hold.by)}: never healed; "
        f"{would if hold.changes else ''}<code>{shown(hold.release_command)}</code> lifts it"
    )


def cycles_section(cycles: tuple[CycleRecord, ...]) -> str:
    columns = ("Started", "Mode", "Result", "Duration", "Drifted", "Pending", "Changed", "Message")
    body = [cycle_row(cycle) for cycle in cycles]
    return _section("cycles", f"Recent cycles ({len(cycles)})", columns, body, "No cycle yet.")


def cycle_row(cycle: CycleRecord) -> str:
    numbers = (cycle.drifted, cycle.pending, cycle.changed)
    return (
        f"<tr><td>{when(cycle.started_at)}</td><td>{shown(cycle.mode)}</td>"
        f"{_cell(cycle.result)}"
        f'<td class="num">{cycle.duration_s:.2f} s</td>'
        + "".join(f'<td class="num">{number}</td>' for number in numbers)
        + f"<td>{shown(cycle.message)}</td></tr>"
    )


def plan_section(markdown: str | None) -> str:
    content = markdown_to_html(markdown) if markdown else "<p>No plan yet.</p>\n"
    return f'<section id="plan">\n<h2>Last plan</h2>\n{content}</section>'


def when(moment: datetime | None) -> str:
    """MOMENT in UTC to the second (`—` for none)."""
    if moment is None:
        return "—"
    utc = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    iso = utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f'<time datetime="{iso}">{utc.strftime("%Y-%m-%d %H:%M:%S")} UTC</time>'


def tone(value: str) -> str:
    """The colour class of a health, drift or result: `good`, `bad`, `muted` or `warn`
    (anything else: drift, a refusal, a revision still rolling out)."""
    plain = value.lower().replace("_", " ")
    if plain in _GOOD:
        return "good"
    if _BAD.search(plain):
        return "bad"
    return "muted" if plain in _MUTED else "warn"


def shown(value: str) -> str:
    """VALUE as HTML text: made `visible`, then HTML-escaped."""
    return escape(visible(value))


def _cell(value: str) -> str:
    return f'<td class="{tone(value)}">{shown(value)}</td>'


def _section(name: str, title: str, columns: tuple[str, ...], rows: list[str], empty: str) -> str:
    """A titled table; EMPTY (fixed text) fills it when there is no row."""
    head = "<tr>" + "".join(f"<th>{column}</th>" for column in columns) + "</tr>"
    if not rows:
        rows = [f'<tr><td colspan="{len(columns)}">{empty}</td></tr>']
    return (
        f'<section id="{name}">\n<h2>{title}</h2>\n<table>\n<thead>{head}</thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n</section>"
    )
