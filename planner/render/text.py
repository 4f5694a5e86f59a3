"""The plan for a terminal: errors and deletions first, one block per deployment, summary.

Pure: returns a string; control and bidi characters in values print escaped
(`planner.render.safe`). Colour only when the caller says its output is a terminal
(`color=True`), and never with NO_COLOR set (`make_console` honours it).
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from typing import NamedTuple, TextIO

from rich.console import Console
from rich.text import Text

from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.plan.changes import show
from planner.plan.model import Action, Change, HeldDeployment, Plan, Recovered
from planner.render.console import is_plain, make_console, print_plain
from planner.render.lines import (
    HELD_TITLE,
    POLICY_TITLE,
    ROLLOUTS_TITLE,
    UNMANAGED_TITLE,
    Line,
    change_lines,
    drift_line,
    headline,
    held_changes_text,
    held_lines,
    held_text,
    lock_line,
    ordered_changes,
    policy_text,
    policy_warnings,
    recovered_headline,
    recovered_text,
    rollout_text,
    unmanaged_text,
)
from planner.render.safe import visible_lines, visible_text
from planner.render.summary import plan_summary

STYLES = {
    Action.CREATE: "green",
    Action.UPDATE: "yellow",
    Action.NEW_REVISION: "cyan",
    Action.DELETE: "red",
    Action.REPLACE: "magenta",
    Action.NO_OP: "dim",
}
_SIGN_STYLES = {"+": "green", "-": "red", "~": "yellow", " ": "dim"}


def render_text(
    plan: Plan, *, color: bool = False, verbose: bool = False, applying: bool = False
) -> str:
    """The plan as text; APPLYING: shown by the apply that executes it (what it recovers
    from an interrupted apply, it records now)."""
    out = io.StringIO()
    write_text(out, plan, color=color, verbose=verbose, applying=applying)
    return out.getvalue()


def write_text(
    stream: TextIO,
    plan: Plan,
    *,
    color: bool = False,
    verbose: bool = False,
    applying: bool = False,
) -> None:
    """`render_text` written to STREAM as it is rendered, a block of lines at a time, so
    the plan of 30,000 creates is never one string (nor one rich layout) in memory."""
    console = make_console(stream, force_terminal=color)
    print_chunk = _print_unstyled if is_plain(console) else _print_styled
    chunk: list[Styled] = []
    for line in _plan_lines(plan, verbose=verbose, applying=applying):
        chunk.append(line)
        if len(chunk) == _LINES_PER_PRINT:
            print_chunk(console, chunk)
            chunk = []
    if chunk:
        print_chunk(console, chunk)


# Lines per print: a print per line costs rich's layout per line (a second at 10,000
# deployments); a print per block of lines costs the same bytes, each line laid out alone.
_LINES_PER_PRINT = 1000


class Styled(NamedTuple):
    """One line of the text before rich sees it: TEXT in STYLE, then TAIL in TAIL_STYLE.

    A plain console prints only the characters, so it never needs the rich `Text`."""

    text: str = ""
    style: str = ""
    tail: str = ""
    tail_style: str = ""

    def as_text(self) -> Text:
        text = Text(self.text, style=self.style)
        if self.tail:
            text.append(self.tail, style=self.tail_style)
        return text


def _print_styled(console: Console, lines: list[Styled]) -> None:
    print_lines(console, [visible_text(line.as_text()) for line in lines])


def _print_unstyled(console: Console, lines: list[Styled]) -> None:
    """LINES on a plain console: the characters `print_lines` writes for their `Text`s
    (rich's `Text` drops some control codes, `visible` escapes the rest), without them."""
    print_plain(console, visible_lines([line.text + line.tail for line in lines]))


def print_lines(console: Console, lines: list[Text]) -> None:
    """LINES (one line each) printed by CONSOLE: styled, or on a plain console as their
    text (`print_plain`)."""
    if is_plain(console):
        print_plain(console, "\n".join([line.plain for line in lines]))
        return
    console.print(Text("\n").join(lines))


def _plan_lines(plan: Plan, *, verbose: bool, applying: bool) -> Iterator[Styled]:
    if plan.config is not None:
        where = f", environment: {plan.environment}" if plan.environment else ""
        yield from (Styled(f"Config: {plan.config}{where}", "bold"), _BLANK)
    for block in plan_blocks(plan, verbose=verbose, applying=applying):
        yield from block
        yield _BLANK
    yield Styled(plan_summary(plan), "bold")


_BLANK = Styled()


def plan_blocks(plan: Plan, *, verbose: bool, applying: bool = False) -> Iterator[list[Styled]]:
    """Errors, warnings, drift, recovered operations, rollouts in progress, the deployments
    a rollback holds, then one block per shown deployment (deletions first), then the
    deployments not managed; each block made when it is reached."""
    blocks = (
        errors_block(plan),
        [Styled(lock_line(plan.lock), "yellow")] if plan.lock else [],
        warnings_block(plan),
        policy_block(plan),
        drift_block(plan),
        recovered_block(plan.recovered, applying=applying),
        listed_block(ROLLOUTS_TITLE, [rollout_text(r) for r in plan.rollouts]),
        held_block(plan),
    )
    changes = (
        change_block(c, verbose=verbose, spelling=plan.spelling_of(c.name))
        for c in ordered_changes(plan, verbose=verbose)
    )
    unmanaged = listed_block(UNMANAGED_TITLE, [unmanaged_text(u) for u in plan.unmanaged])
    return (block for block in itertools.chain(blocks, changes, [unmanaged]) if block)


def listed_block(title: str, items: list[str]) -> list[Styled]:
    if not items:
        return []
    return [Styled(title, "bold"), *(Styled(f"  {item}") for item in items)]


def errors_block(plan: Plan) -> list[Styled]:
    if not plan.errors:
        return []
    lines = [Styled("Errors: the plan cannot be applied", "bold red")]
    for error in plan.errors:
        lines.append(Styled(f"  ✗ {error.name}: {error.message}", "red"))
        if error.hint:
            lines.append(Styled(f"      hint: {error.hint}"))
    return lines


def warnings_block(plan: Plan) -> list[Styled]:
    if not plan.warnings:
        return []
    lines = [Styled("Warnings:", "bold yellow")]
    lines += [Styled(f"  ! {w.message}", "yellow") for w in plan.warnings]
    return lines


def policy_block(plan: Plan) -> list[Styled]:
    """The Policy section: each warning a policy gave, with the deployment it is about."""
    found = policy_warnings(plan)
    if not found:
        return []
    lines = [Styled(POLICY_TITLE, "bold yellow")]
    lines += [Styled(f"  ! {policy_text(result)}", "yellow") for result in found]
    return lines


def drift_block(plan: Plan) -> list[Styled]:
    if not plan.drift:
        return []
    lines = [Styled("Drift: changed outside the planner (recorded → observed)", "bold yellow")]
    lines += [
        Styled(f"  {drift_line(drift, plan.spelling_of(drift.name))}", "yellow")
        for drift in plan.drift
    ]
    if plan.record_command:
        lines.append(Styled(f"To record it into the state: {plan.record_command}"))
    return lines


def recovered_block(recovered: list[Recovered], *, applying: bool = False) -> list[Styled]:
    """`Recovered from an interrupted apply: api (ID), ...`, then what each one was."""
    if not recovered:
        return []
    lines = [Styled(recovered_headline(recovered), "bold")]
    lines += [Styled(f"  {recovered_text(r, applying=applying)}") for r in recovered]
    return lines


def held_block(plan: Plan) -> list[Styled]:
    """The Held section: each deployment a rollback holds, the way to lift it, and what
    the config would change of it (not planned)."""
    if not plan.held:
        return []
    lines = [Styled(HELD_TITLE, "bold magenta")]
    for held in plan.held:
        lines += held_entry_lines(held, plan.spelling_of(held.address))
    return lines


def held_entry_lines(held: HeldDeployment, spelling: Spelling) -> list[Styled]:
    lines = [Styled(f"  {held_text(held)}", "magenta"), Styled(f"    {held_changes_text(held)}")]
    for line in held_lines(held, spelling):
        styled = line_text(line)
        lines.append(styled._replace(text="  " + styled.text))
    return lines


def change_block(
    change: Change, *, verbose: bool, spelling: Spelling = SEED_SPELLING
) -> list[Styled]:
    style = STYLES[change.action]
    ident = f"  (id {change.deployment_id})" if change.deployment_id else ""
    lines = [Styled(headline(change), style, ident, "dim")]
    if change.reason:
        lines.append(Styled(f"    reason: {change.reason}", style))
    lines += [line_text(line) for line in change_lines(change, verbose=verbose, spelling=spelling)]
    lines += [Styled(f"    note: {note}", "dim") for note in change.notes]
    return lines


def line_text(line: Line) -> Styled:
    """`    + path = value  (note)`: the line in its sign's style, the note dim."""
    if line.sign == "~":
        plain = f"    ~ {line.path}: {show(line.before)} → {show(line.after)}"
    elif line.sign == "-":
        plain = f"    - {line.path} = {show(line.before)}"
    else:
        plain = f"    {line.sign} {line.path} = {show(line.after)}"
    return Styled(plain, _SIGN_STYLES[line.sign], f"  ({line.note})" if line.note else "", "dim")
