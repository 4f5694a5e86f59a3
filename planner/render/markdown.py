"""The plan as a pull-request comment (GitHub-flavoured markdown).

A hidden marker lets sticky-comment tools find and update the comment; the summary line,
then alerts for errors and deletions, a table of deployments, and one collapsible
`<details>` block with a ```diff fence per deployment. The whole comment stays within
`BUDGET` characters (GitHub refuses comments over 65,536): details that do not fit are
left out with a notice. No value can print an HTML comment or a plan marker, nor a
control or bidi character (`planner.render.safe`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.plan.changes import show
from planner.plan.model import Action, Change, HeldDeployment, Plan, Recovered
from planner.render import lines as plan_lines
from planner.render.safe import defang, escape_html, visible
from planner.render.summary import plan_summary

MARKER = "<!-- planner-plan -->"
BUDGET = 65_000
_NOTICE = (
    "\n> [!NOTE]\n> Output truncated: {what} (the comment is limited to 65,000 characters). "
    "Run `planner plan` to see the whole plan.\n"
)
_NOTICE_RESERVE = 300
_MARKER_ESCAPES = {char: f"%{ord(char):02X}" for char in "%<>"}


def render_markdown(plan: Plan, *, verbose: bool = False, budget: int = BUDGET) -> str:
    changes = plan_lines.ordered_changes(plan, verbose=verbose)
    summary = f"**{plan_summary(plan)}**"
    parts = (marker(plan), heading(plan), summary, record_line(plan), *alerts(plan))
    head = visible("\n".join(part for part in parts if part), keep="\n")
    rows = [visible(row) for row in table_rows(changes, plan.held)]
    drift = drift_details(plan) + recovered_details(plan.recovered) + listed_details(plan)
    blocks = [details(c, verbose=verbose, spelling=plan.spelling_of(c.name)) for c in changes]
    blocks += [held_details(h, plan.spelling_of(h.address)) for h in plan.held]
    return _fit(head, rows, drift, blocks, budget)


def marker(plan: Plan) -> str:
    """`<!-- planner-plan: <config>#<env> -->` (one sticky comment per config and
    environment); `<!-- planner-plan: <config> -->` without environments."""
    if plan.config is None:
        return MARKER
    where = f"{plan.config}#{plan.environment}" if plan.environment else plan.config
    return f"<!-- planner-plan: {marker_text(where)} -->"


def marker_text(where: str) -> str:
    """WHERE inside the marker: `%`, `<`, `>`, controls and bidi characters
    percent-encoded, so a path can neither end the comment nor hide in it; a plain path
    is itself."""
    return "".join(_MARKER_ESCAPES.get(char, char) for char in visible(where))


def heading(plan: Plan) -> str:
    """`### Plan: <config>`, with `(environment <env>)` when the config has environments."""
    if plan.config is None:
        return ""
    where = f" (environment {code(plan.environment)})" if plan.environment else ""
    return f"### Plan: {code(plan.config)}{where}\n"


def _fit(head: str, rows: list[str], drift: str, blocks: list[str], budget: int) -> str:
    """HEAD, the table ROWS, DRIFT and the per-deployment BLOCKS, as many as fit in
    BUDGET; a notice then counts exactly what was left out, cut between whole lines."""
    limit = budget - _NOTICE_RESERVE
    if len(head) + 1 > limit:
        cut = head.rfind("\n", 0, limit) + 1
        return head[:cut] + _notice(len(blocks), "the table and details of")
    out = head + "\n"
    for index, row in enumerate(rows):
        if len(out) + len(row) + 1 > limit:
            return out + _notice(len(blocks) - max(0, index - _TABLE_HEADER), "")
        out += row + "\n"
    if len(out) + len(drift) > limit:
        return out + _notice(len(blocks), "the drift and the details of")
    out += drift
    for index, block in enumerate(blocks):
        if len(out) + len(block) > limit:
            return out + _notice(len(blocks) - index, "the details of")
        out += block
    return out


def _notice(count: int, what: str) -> str:
    """The truncation notice: WHAT of COUNT deployment(s) are not shown."""
    if not what:
        return _NOTICE.format(what=f"{count} more deployment(s) not shown")
    return _NOTICE.format(what=f"{what} {count} deployment(s) are not shown")


def record_line(plan: Plan) -> str:
    """How a refresh-only plan's drift gets into the state (empty for other plans)."""
    if not plan.record_command:
        return ""
    return f"\nTo record it into the state: {code(plan.record_command)}"


def alerts(plan: Plan) -> list[str]:
    parts = []
    if plan.lock is not None:
        parts.append(f"\n> [!NOTE]\n> {inline(plan_lines.lock_line(plan.lock))}")
    if plan.errors:
        lines = ["> [!CAUTION]", "> **The plan has errors and cannot be applied.**"]
        for error in plan.errors:
            hint = f" — hint: {inline(error.hint)}" if error.hint else ""
            lines.append(f"> - {code(error.name)}: {inline(error.message)}{hint}")
        parts.append("\n" + "\n".join(lines))
    deleted = plan.changes_with(Action.DELETE, Action.REPLACE)
    if deleted or plan.warnings:
        lines = ["> [!WARNING]"]
        for change in deleted:
            what = "deleted" if change.action is Action.DELETE else "deleted and re-created"
            lines.append(f"> - {code(change.name)} will be **{what}**")
        lines += [f"> - {inline(w.message)}" for w in plan.warnings]
        parts.append("\n" + "\n".join(lines))
    if plan.held:
        lines = ["> [!IMPORTANT]", f"> **{plan_lines.HELD_TITLE}**"]
        lines += [f"> - {held_item(held)}" for held in plan.held]
        parts.append("\n" + "\n".join(lines))
    policy = plan_lines.policy_warnings(plan)
    if policy:
        lines = ["> [!WARNING]", f"> **{plan_lines.POLICY_TITLE}**"]
        lines += [
            f"> - {code(r.deployment)}: policy {code(r.policy)}: {inline(r.message)}"
            for r in policy
        ]
        parts.append("\n" + "\n".join(lines))
    return parts


def held_item(held: HeldDeployment) -> str:
    """`` `api` rolled back to revision `R` since S by B: `planner release api` lifts the
    hold ``."""
    return (
        f"{code(held.address)} rolled back to revision {code(held.revision)} "
        f"since {inline(held.since)} "
        f"by {inline(held.by)}: {code(held.release_command)} lifts the hold"
    )


_TABLE_HEADER = 3  # the blank line, the column names and the separator
HELD_LABEL = "held (not planned)"


def table_rows(changes: list[Change], held: Sequence[HeldDeployment] = ()) -> list[str]:
    """The table as lines: a blank line and two header lines, then one row per change,
    then one per deployment a rollback holds (its Fields: what the config would change)."""
    if not changes and not held:
        return []
    rows = ["", "| | Deployment | Action | Fields |", "|---|---|---|---|"]
    for change in changes:
        symbol = change.action.symbol if change.action is not Action.NO_OP else ""
        rows.append(
            f"| {symbol} | {deployment_cell(change)} | {plan_lines.action_label(change)} "
            f"| {len(change.fields)} |"
        )
    rows += [f"| | {code(h.address)} | {HELD_LABEL} | {len(h.changes)} |" for h in held]
    return rows


def deployment_cell(change: Change) -> str:
    """`` `api` ``; a move `` `sales` -> `sales-agent` (moved) ``."""
    if change.moved_from is None:
        return code(change.name)
    return f"{code(change.moved_from)} -> {code(change.name)} (moved)"


def details(change: Change, *, verbose: bool, spelling: Spelling = SEED_SPELLING) -> str:
    """One change's diff (in SPELLING's words) inside a `<details>` block."""
    lines = [f"# reason: {visible(change.reason)}"] if change.reason else []
    changed = plan_lines.change_lines(change, verbose=verbose, spelling=spelling)
    lines += [diff_line(line) for line in changed]
    lines += [f"# note: {visible(note)}" for note in change.notes]
    summary = plan_lines.headline(change).strip()
    return _details_block(summary, lines)


def held_details(held: HeldDeployment, spelling: Spelling = SEED_SPELLING) -> str:
    """What the config would change of a held deployment (not planned), in a `<details>`."""
    lines = [f"# {visible(plan_lines.held_text(held))}"]
    lines += [diff_line(line) for line in plan_lines.held_lines(held, spelling)]
    summary = f"{held.address} is held: {plan_lines.held_changes_text(held).rstrip(':')}"
    return _details_block(summary, lines)


def recovered_details(recovered: list[Recovered], *, applying: bool = False) -> str:
    """`Recovered from an interrupted apply: api (ID), ...` (visible), what each one was
    inside."""
    if not recovered:
        return ""
    lines = [f"# {visible(plan_lines.recovered_text(r, applying=applying))}" for r in recovered]
    return _details_block(plan_lines.recovered_headline(recovered), lines)


def listed_details(plan: Plan) -> str:
    """The rollouts in progress and the deployments not managed, one block each."""
    out = ""
    if plan.rollouts:
        rollouts = [f"# {visible(plan_lines.rollout_text(r))}" for r in plan.rollouts]
        out += _details_block(plan_lines.ROLLOUTS_TITLE, rollouts)
    if plan.unmanaged:
        title = f"{plan_lines.UNMANAGED_TITLE}: {len(plan.unmanaged)} deployment(s)"
        unmanaged = [f"# {visible(plan_lines.unmanaged_text(u))}" for u in plan.unmanaged]
        out += _details_block(title, unmanaged)
    return out


def drift_details(plan: Plan) -> str:
    if not plan.drift:
        return ""
    lines = [
        f"! {visible(plan_lines.drift_line(drift, plan.spelling_of(drift.name)))}"
        for drift in plan.drift
    ]
    return _details_block(f"Drift: {len(plan.drift)} change(s) outside the planner", lines)


def _details_block(summary: str, lines: list[str]) -> str:
    body = "\n".join(defang(visible(line, keep="\n")) for line in lines)
    body = body or "# no field changes"
    fence = _fence(body)
    return (
        f"\n<details><summary>{escape_html(visible(summary))}</summary>\n\n"
        f"{fence}diff\n{body}\n{fence}\n\n</details>\n"
    )


def diff_line(line: plan_lines.Line) -> str:
    """One diff row (two for a change: `-` then `+`), every part `visible`."""
    note = f"  # {visible(line.note)}" if line.note else ""
    path, before, after = visible(line.path), visible(show(line.before)), visible(show(line.after))
    if line.sign == "~":
        return f"- {path}: {before}\n+ {path}: {after}{note}"
    if line.sign == "-":
        return f"- {path}: {before}{note}"
    if line.sign == "+":
        return f"+ {path}: {after}{note}"
    return f"  {path}: {after}"


def _fence(body: str) -> str:
    """A backtick fence longer than any backtick run inside the body."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def code(text: str) -> str:
    """Inline code that survives backticks and table pipes in the text, and shows no
    control character and no HTML comment opener."""
    text = defang(visible(text))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{ticks}{pad}{text}{pad}{ticks}".replace("|", "\\|")


def inline(text: str) -> str:
    """Plain text safe in a list item or a table cell."""
    return escape_html(visible(text.replace("\n", " "))).replace("|", "\\|")
