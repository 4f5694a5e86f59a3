"""The plan's markdown view (`planner.render.markdown`) as an HTML fragment for a page.

markdown-it-py (CommonMark, maintained, already here through rich) parses; what it may
emit is narrowed so that no config value can put markup, a script or a request into the
page:
- raw HTML is never passed through. The markdown view writes exactly three tags of its
  own (`<details>`, `<summary>...</summary>`, `</details>`) and its marker comment: those
  become the same tags with their text re-escaped, the comment disappears, and any other
  HTML is shown as the text it is;
- links, images, autolinks and reference definitions are off, so nothing in the page
  points to, or loads, anything outside it;
- GitHub alerts (`> [!WARNING]`) become a titled block with a class; `diff` fences mark
  their `+`, `-` and `!` lines with a class each.
Everything else is markdown-it's own escaping of text, code spans and fences.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

_SUMMARY = re.compile(r"<details><summary>([^<>]*)</summary>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_ALERT = re.compile(r"\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]")
_DIFF_CLASSES = {"+": "add", "-": "del", "!": "drift", "#": "note"}


@functools.lru_cache(maxsize=8)
def markdown_to_html(markdown: str) -> str:
    """MARKDOWN (the plan's markdown view) as an HTML fragment with no tag of its own."""
    return str(_parser().render(markdown))


@functools.cache
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False})
    parser.enable("table").disable(["link", "image", "autolink", "reference"])
    parser.core.ruler.push("planner_alerts", _mark_alerts)
    parser.add_render_rule("html_block", _html_block)
    parser.add_render_rule("html_inline", _html_inline)
    parser.add_render_rule("fence", _fence)
    return parser


def _html_block(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """The view's own `<details>` tags as tags (their text re-escaped); any other HTML as
    text; comments dropped."""
    out = []
    for line in _COMMENT.sub("", tokens[idx].content).splitlines():
        stripped = line.strip()
        summary = _SUMMARY.fullmatch(stripped)
        if summary:
            out.append(f"<details><summary>{_text(summary.group(1))}</summary>")
        elif stripped == "</details>":
            out.append("</details>")
        elif stripped:
            out.append(f"<p>{html.escape(line)}</p>")
    return "\n".join(out) + ("\n" if out else "")


def _html_inline(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Inline HTML in a value is shown as the text it is."""
    return html.escape(tokens[idx].content)


def _fence(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A fence as `<pre><code>`; in a `diff` fence each line carries the class of its sign."""
    token = tokens[idx]
    is_diff = token.info.strip() == "diff"
    lines = []
    for line in token.content.splitlines():
        css = _DIFF_CLASSES.get(line[:1]) if is_diff else None
        text = html.escape(line)
        lines.append(f'<span class="{css}">{text}</span>' if css else text)
    kind = ' class="language-diff"' if is_diff else ""
    return f"<pre><code{kind}>" + "\n".join(lines) + "\n</code></pre>\n"


def _mark_alerts(state: StateCore) -> None:
    """`> [!WARNING]` opening a blockquote: the blockquote gets `class="alert warning"`
    and the marker becomes a bold title (`Warning`)."""
    tokens = state.tokens
    for index, token in enumerate(tokens[:-2]):
        inline = tokens[index + 2]
        if token.type != "blockquote_open" or inline.type != "inline" or not inline.children:
            continue
        first = inline.children[0]
        kind = _ALERT.match(first.content) if first.type == "text" else None
        if kind is None:
            continue
        token.attrSet("class", f"alert {kind.group(1).lower()}")
        first.content = first.content[kind.end() :]
        title = [Token("strong_open", "strong", 1), Token("text", "", 0)]
        title[1].content = kind.group(1).capitalize()
        title.append(Token("strong_close", "strong", -1))
        inline.children[:0] = title


def _text(escaped: str) -> str:
    """Text the view already escaped, escaped again from its plain form (no entity or
    quote can open markup)."""
    return html.escape(html.unescape(escaped))
