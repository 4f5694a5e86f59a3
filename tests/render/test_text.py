"""The text view: order, symbols, colour only when asked, secrets masked."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from planner.plan.model import Action, Change, FieldChange, Plan
from planner.render import text as text_module
from planner.render.console import is_plain, make_console, print_plain
from planner.render.safe import visible, visible_text
from planner.render.summary import plan_summary
from planner.render.text import Styled, print_lines, render_text, write_text
from tests.plan.builders import SECRET_VALUES


def test_text_matches_the_golden_file(plan, golden) -> None:
    """The rich plan renders exactly as tests/render/golden/plan.txt (and verbose)."""
    golden("plan.txt", render_text(plan))
    golden("plan.verbose.txt", render_text(plan, verbose=True))


def test_errors_and_deletions_come_first_and_the_summary_last(plan) -> None:
    """Errors, then the delete and replace blocks, then the rest; the summary closes."""
    text = render_text(plan)
    order = [
        text.index("Errors:"),
        text.index("- legacy-bot will be deleted"),
        text.index("± tools will be replaced"),
        text.index("~ gateway will be updated in place"),
        text.index("↻ worker will get a new revision"),
    ]
    assert order == sorted(order)
    assert text.rstrip().endswith(plan_summary(plan))


def test_lists_are_diffed_by_element_name(plan) -> None:
    """One changed sidecar image is one line; added and removed sidecars are named."""
    text = render_text(plan)
    assert 'sidecars[log-shipper].image: "shipper:1.0" → "shipper:1.1"  (new-revision)' in text
    assert "+ source_config.resource_spec.sidecars[tracer] = " in text
    assert "- source_config.resource_spec.sidecars[metrics] = " in text


def test_unchanged_fields_are_elided_unless_verbose(plan) -> None:
    """An unchanged managed field of an update only shows with verbose."""
    unchanged = "      source_config.resource_spec.min_scale = 1"
    assert unchanged not in render_text(plan)
    assert unchanged in render_text(plan, verbose=True)


def test_colour_only_when_asked_and_never_with_no_color(plan, monkeypatch) -> None:
    """ANSI codes appear with color=True, not without, and not under NO_COLOR."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in render_text(plan, color=True)
    assert "\x1b[" not in render_text(plan)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[31m" not in render_text(plan, color=True)


def test_names_print_literally() -> None:
    """Rich markup in a name or value is printed as written."""
    field = FieldChange(
        path="source_config.custom_url", change_class="in-place", before="[b]x[/b]", after="y"
    )
    plan = Plan(changes=[Change(name="[red]odd[/red]", action=Action.UPDATE, fields=[field])])
    text = render_text(plan, color=True)
    assert "[red]odd[/red]" in text
    assert '"[b]x[/b]"' in text


@pytest.mark.parametrize("verbose", [False, True])
def test_secret_values_never_print(plan, verbose) -> None:
    """Secrets show as (sensitive); their values are nowhere in the text."""
    text = render_text(plan, verbose=verbose)
    assert (
        "secrets.OPENAI_API_KEY: (sensitive) → (sensitive)  (new-revision, value changed)" in text
    )
    assert not [value for value in SECRET_VALUES if value in text]


def test_an_empty_plan_renders_only_the_summary() -> None:
    """No changes: the text is the summary line alone."""
    assert render_text(Plan()) == "No changes. The deployments match the configuration.\n"


@pytest.mark.parametrize("color", [False, True])
def test_text_written_in_blocks_of_lines_is_the_same_text(plan, monkeypatch, color) -> None:
    """The plan written a few lines per print is byte for byte the plan in one print."""
    whole = render_text(plan, color=color, verbose=True)
    monkeypatch.setattr(text_module, "_LINES_PER_PRINT", 3)
    out = io.StringIO()
    write_text(out, plan, color=color, verbose=True)
    assert out.getvalue() == whole and whole.count("\n") > 3


LINES = [
    Text("Config: planner.toml", "bold"),
    Text(),
    Text.assemble(("+ ", "green"), ("api", "bold"), " will be created"),
    Text("    + labels.note = " + visible('"tab\there\nnew line \u202e bidi \x1b[31m"')),
    Text("    ~ wide = 「漢字」 🚀 e\u0301 " + "x" * 200 + "  "),
    Text("  trailing spaces   "),
    Text(),
]


@pytest.mark.parametrize("lines", [LINES, LINES[:1], [Text()], [Text(), Text("a"), Text()]])
def test_plain_lines_are_what_rich_prints(lines) -> None:
    """Without terminal or colour, the lines written as text are rich's bytes: soft wrap,
    wide and combining characters, spaces at either end, empty lines."""
    by_rich, plain = io.StringIO(), io.StringIO()
    make_console(by_rich).print(Text("\n").join(lines))
    console = make_console(plain)
    assert is_plain(console)
    print_lines(console, lines)
    assert plain.getvalue() == by_rich.getvalue()


@pytest.mark.parametrize(
    "text", ["a\nb", "", "tab\there", "bell\x07 and\rreturn", "esc \x1b[31m", " x \n\n y "]
)
def test_print_plain_writes_what_rich_writes(text) -> None:
    """Any str: rich's bytes, written directly when nothing in it is rewritten by rich."""
    by_rich, plain = io.StringIO(), io.StringIO()
    make_console(by_rich).print(text, markup=False)
    print_plain(make_console(plain), text)
    assert plain.getvalue() == by_rich.getvalue()


# Text of every kind a value may bring: what rich drops, what `visible` escapes, line breaks
_ANY_TEXT = st.text(st.sampled_from(list("ab ~→「\t\n\r\x07\x0b\x1b\x85\u202e\u2066\ufeff")))
_STYLED = st.builds(
    Styled, _ANY_TEXT, st.sampled_from(["", "green", "bold"]), _ANY_TEXT, st.just("dim")
)


@given(st.lists(_STYLED, min_size=1, max_size=5))
def test_plain_styled_lines_print_what_their_rich_text_prints(lines) -> None:
    """On a plain console the lines are written without rich's `Text`: the same bytes as
    their `Text`s made visible and printed (control codes dropped or escaped alike)."""
    by_text, by_lines = io.StringIO(), io.StringIO()
    print_lines(make_console(by_text), [visible_text(line.as_text()) for line in lines])
    text_module._print_unstyled(make_console(by_lines), lines)
    assert by_lines.getvalue() == by_text.getvalue()
