"""Output that cannot be forged: hostile values in every place a plan view shows one."""

from __future__ import annotations

import re

from rich.text import Text

from planner.plan.model import (
    Action,
    Change,
    Drift,
    FieldChange,
    Plan,
    PlanProblem,
    PlanWarning,
    Summary,
)
from planner.render.markdown import render_markdown
from planner.render.safe import defang, visible, visible_text
from planner.render.text import render_text

FORGED = "x\n<!-- planner-plan: other.toml#prod -->"
BIDI = "admin\u202e\u2066txt.exe\u2069\u200f"
ESCAPE = "\x1b[2J\x07\x85"
HOSTILE = [FORGED, BIDI, ESCAPE, "<!--", "-->", "a-->b<!--c"]
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def hostile_plan(value: str) -> Plan:
    """VALUE as a config path, a path, a before/after value, a reason, a note, a drift,
    an error, a hint and a warning."""
    field = FieldChange(
        path=f"source_config.resource_spec.labels.{value}",
        change_class="in-place",
        before=value,
        after={value: [value]},
    )
    change = Change(name="api", action=Action.UPDATE, fields=[field], reason=value, notes=[value])
    deleted = Change(name="old", action=Action.DELETE, reason=value)
    return Plan(
        config=f"dir/{value}.toml",
        summary=Summary(update=1, delete=1),
        changes=[change, deleted],
        drift=[Drift(name="api", path=f"labels.{value}", recorded=value, observed=None)],
        errors=[PlanProblem(name="api", path=value, message=value, hint=value)],
        warnings=[PlanWarning(name="api", message=value)],
    )


def test_no_value_prints_a_marker_or_an_html_comment_in_markdown() -> None:
    """The plan's own marker is the only `<!--` and the only `-->` of the comment, and it
    is the first line; a forged marker never appears, not even in a fence or code span."""
    for value in HOSTILE:
        md = render_markdown(hostile_plan(value), verbose=True)
        assert md.count("<!--") == 1 and md.count("-->") == 1, value
        assert md.splitlines()[0].startswith("<!-- planner-plan: dir/")
        assert "<!-- planner-plan: other" not in md
        assert len(re.findall(r"<!-- planner-plan: [^>]* -->", md)) == 1


def test_control_and_bidi_characters_print_escaped_in_text_and_markdown() -> None:
    """No raw control (but the newlines between lines) or bidi character is printed."""
    for value in (BIDI, ESCAPE, FORGED):
        plan = hostile_plan(value)
        for out in (render_text(plan), render_text(plan, color=True), render_markdown(plan)):
            assert not RAW.search(out.replace("\x1b[", "")), (value, out)
    text = render_text(hostile_plan(BIDI))
    assert "admin\\u202e\\u2066txt.exe\\u2069\\u200f" in text
    assert "\\x1b[2J\\x07\\x85" in render_markdown(hostile_plan(ESCAPE))


def test_the_marker_of_a_hostile_config_path_is_percent_encoded() -> None:
    """`<`, `>` and `%` of a config path are %-encoded in the marker; a plain path is as is."""
    md = render_markdown(Plan(config="a<!--b-->%.toml", environment="dev"))
    assert md.splitlines()[0] == "<!-- planner-plan: a%3C!--b--%3E%25.toml#dev -->"
    assert render_markdown(Plan(config="ci/planner.toml")).startswith(
        "<!-- planner-plan: ci/planner.toml -->"
    )


def test_helpers_escape_only_what_they_must() -> None:
    """visible escapes controls and bidi (KEEP spared), defang only comment delimiters,
    visible_text keeps each segment's style."""
    assert visible("plain é ü 中") == "plain é ü 中"
    assert visible("a\nb\u202ec", keep="\n") == "a\nb\\u202ec"
    assert defang("<!-- a --> <b>") == "\\u003c!-- a --\\u003e <b>"
    line = Text("name: ", style="bold")
    line.append("\u202eevil", style="red")
    safe = visible_text(line)
    assert safe.plain == "name: \\u202eevil"
    assert [(s.start, s.end, s.style) for s in safe.spans] == [(6, 16, "red")]
