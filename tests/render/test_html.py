"""The plan's markdown view as HTML: structure kept, no markup, script or request from a value."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

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
from planner.render.html import markdown_to_html
from planner.render.markdown import render_markdown
from tests.plan.builders import SECRET_VALUES, rich_plan

# What the HTML of a plan may hold: markdown's inert structure (a value can still start a
# heading or a list, as it can on GitHub), and nothing that can run, link, load or submit.
ALLOWED_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "p", "strong", "em", "code", "pre", "span",
    "ul", "ol", "li", "blockquote", "br",
    "table", "thead", "tbody", "tr", "th", "td", "details", "summary", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"class", "style", "start"}  # table cell alignment, a list's first number

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "![x](http://example.invalid/x.png)",
    "[click](javascript:alert(1))",
    "<http://example.invalid/>",
    '"><iframe src=//example.invalid>',
    "</details><details open><summary>x</summary><script>1</script>",
    "<!-- planner-plan --> --> <!--",
    "&lt;script&gt;",
    "`code` | pipe | ``` fence",
]


class Tags(HTMLParser):
    """Every start tag and its attribute names."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, set[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name for name, _ in attrs}))


def tags_of(fragment: str) -> list[tuple[str, set[str]]]:
    parser = Tags()
    parser.feed(fragment)
    parser.close()
    return parser.tags


def hostile_plan(text: str) -> Plan:
    """A plan with TEXT in every place a config value or a server message reaches."""
    field = FieldChange(path=f"labels.{text}", change_class="in-place", before=text, after=text)
    change = Change(name=text, action=Action.UPDATE, fields=[field], reason=text, notes=[text])
    return Plan(
        config=f"{text}.toml",
        environment=text,
        summary=Summary(update=1, delete=1),
        changes=[change, Change(name=f"old-{text}", action=Action.DELETE)],
        drift=[Drift(name=text, path=text, recorded=text, observed=text)],
        errors=[PlanProblem(name=text, message=text, hint=text)],
        warnings=[PlanWarning(name=text, message=text)],
    )


def assert_inert(fragment: str) -> None:
    for tag, attributes in tags_of(fragment):
        assert tag in ALLOWED_TAGS, (tag, fragment)
        assert attributes <= ALLOWED_ATTRIBUTES, (tag, attributes)
    assert "<!--" not in fragment


def test_the_rich_plan_keeps_its_structure_and_no_secret() -> None:
    """Heading, alerts, table, collapsible diffs: all there as HTML; no secret value."""
    fragment = markdown_to_html(render_markdown(rich_plan()))
    tags = [tag for tag, _ in tags_of(fragment)]
    assert {"table", "details", "summary", "blockquote", "pre"} <= set(tags)
    assert tags.count("details") == 10
    assert '<blockquote class="alert caution">\n<p><strong>Caution</strong>' in fragment
    assert '<span class="add">+ ' in fragment and '<span class="del">- ' in fragment
    assert not [value for value in SECRET_VALUES if value in fragment]
    assert_inert(fragment)


def test_the_marker_comment_is_dropped_and_other_html_shown_as_text() -> None:
    """The plan marker disappears; a raw tag the view did not write is shown, not parsed."""
    fragment = markdown_to_html("<!-- planner-plan -->\n<div onclick=x>hi</div>\n\nA <b>b</b>\n")
    assert fragment == "<p>&lt;div onclick=x&gt;hi&lt;/div&gt;</p>\n<p>A &lt;b&gt;b&lt;/b&gt;</p>\n"


def test_a_summary_is_re_escaped() -> None:
    """The text of a `<summary>` the view wrote is escaped from its plain form again."""
    fragment = markdown_to_html('<details><summary>a &lt;b&gt; "c"</summary>\n\n</details>\n')
    assert fragment == "<details><summary>a &lt;b&gt; &quot;c&quot;</summary>\n</details>\n"


def test_a_plain_fence_has_no_diff_classes() -> None:
    """Only a `diff` fence marks its lines."""
    assert markdown_to_html("```\n+ a\n```\n") == "<pre><code>+ a\n</code></pre>\n"


def test_hostile_values_stay_text() -> None:
    """Scripts, images, links, comments and fake details in every value print as text."""
    for text in HOSTILE:
        fragment = markdown_to_html(render_markdown(hostile_plan(text)))
        assert_inert(fragment)
        assert "<script" not in fragment and "<img" not in fragment and "<iframe" not in fragment


@given(st.text(alphabet=st.sampled_from(list("<>&\"'`![]()/=:|*_#-~ \\\nabcx")), max_size=40))
def test_no_value_can_add_markup(text: str) -> None:
    """Whatever a value holds, the page fragment has only the view's structure."""
    assert_inert(markdown_to_html(render_markdown(hostile_plan(text))))


def test_a_plain_quote_is_no_alert() -> None:
    """Only `[!NOTE]`-style markers make an alert; another quote stays a plain blockquote."""
    assert markdown_to_html("> [!NOPE] x\n") == "<blockquote>\n<p>[!NOPE] x</p>\n</blockquote>\n"
