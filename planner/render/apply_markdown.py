"""The end of an apply as markdown (the CI step summary): one table row per deployment
something was done to, then the summary line. Pure: returns a string; cells are escaped
like the plan's markdown."""

from __future__ import annotations

from planner.apply.results import ApplyResult, Outcome
from planner.render.apply_text import short_id
from planner.render.lines import recovered_headline
from planner.render.markdown import code, inline
from planner.render.summary import apply_summary

_ICONS = {
    Outcome.SUCCEEDED: "✅",
    Outcome.FAILED: "❌",
    Outcome.SUBMITTED: "⏳",
    Outcome.NOT_STARTED: "⏸️",
}


def render_apply_markdown(result: ApplyResult, *, title: str = "planner apply") -> str:
    rows = [r for r in result.results if r.shown]
    lines = [f"### {inline(title)}", ""]
    if result.recovered:
        lines += [inline(recovered_headline(result.recovered)), ""]
    if rows:
        lines += ["| Deployment | Action | Revision | Status | Time |", "|---|---|---|---|---:|"]
        for row in rows:
            action = "rollout" if row.rollout else row.action.value.replace("_", " ")
            status = f"{_ICONS[row.outcome]} {inline(row.status)}"
            if row.error:
                status += f": {inline(row.error)}"
            lines.append(
                f"| {code(row.name)} | {action} | {code(short_id(row.revision_id))} "
                f"| {status} | {row.seconds:.1f}s |"
            )
        lines.append("")
    lines.append(f"**{inline(apply_summary(result))}**")
    return "\n".join(lines) + "\n"
