"""Output that cannot be forged: what a config value may not print as it is.

A value (a name, a path, a label, a reason, an error message) reaches the terminal and
the pull-request comment. Two things in it must never pass through raw:
- control and bidirectional characters (C0 and C1 controls, DEL, the bidi embeddings,
  overrides, isolates and marks, zero-width and line/paragraph separators): they can hide
  or reorder text ("Trojan Source") or start a line of their own. `visible` prints each as
  an escape (`\\x1b`, `\\u202e`; in TOML text `\\u001b`, the escape its strings take).
  Every view goes through it: the plan views, `planner.render.output` (what the other
  commands print: lines, notices, warnings, tables and aligned columns), the resolved
  config, the reconcile status page, and the JSON of a plan and of `state pull`
  (`visible_json`: JSON's own `\\uXXXX` escapes, so the values stay the same);
- in markdown, an HTML comment opener: `<!-- planner-plan: ... -->` is the marker a
  sticky-comment tool finds a plan's comment by, so a value must never produce it, not
  even inside a code span or a fence (tools match the text). `defang` writes `<!--` and
  `-->` with a JSON-style escape there; outside code, `escape_html` covers them.
"""

from __future__ import annotations

import itertools
import re

from rich.control import strip_control_codes
from rich.text import Text

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)
# `_UNSAFE` but the line break (what lines joined by line breaks may hold)
_UNSAFE_BUT_LINE_BREAKS = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)


def visible(text: str, *, keep: str = "", toml: bool = False) -> str:
    """TEXT with every control or bidi character escaped (those in KEEP left as they are);
    with TOML, each as `\\uXXXX`, so in TOML text (where such a character can stand only
    in a basic string or a comment) a string keeps its value."""
    if not _UNSAFE.search(text):
        return text
    escape = _unicode_escape if toml else _escape
    return _UNSAFE.sub(lambda m: m.group() if m.group() in keep else escape(m.group()), text)


def visible_json(text: str) -> str:
    """JSON TEXT (as `json.dumps(..., ensure_ascii=False)` writes it) with every control or
    bidi character in its strings written as a `\\uXXXX` escape: the same value, printed
    as `config --format json` prints it. A raw line break can only be the indentation's."""
    return visible(text, keep="\n", toml=True)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unicode_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def visible_text(text: Text) -> Text:
    """A rich Text line with its characters made `visible`, its styles kept per segment."""
    plain = text.plain
    if not _UNSAFE.search(plain):
        return text
    cuts = sorted({0, len(plain), *(s.start for s in text.spans), *(s.end for s in text.spans)})
    out = Text(style=text.style, end=text.end)
    for start, end in itertools.pairwise(cuts):
        styles = [s.style for s in text.spans if s.start <= start and end <= s.end]
        out.append(visible(plain[start:end]), style=styles[-1] if styles else "")
    return out


def visible_lines(lines: list[str]) -> str:
    """LINES joined by line breaks, each the plain text of `visible_text(Text(line))`:
    without the control codes rich's `Text` drops, the other unsafe characters escaped.
    One look at the whole text when nothing in it needs either (the usual case)."""
    joined = "\n".join(lines)
    if not _UNSAFE_BUT_LINE_BREAKS.search(joined) and joined.count("\n") == len(lines) - 1:
        return joined
    return "\n".join([visible(strip_control_codes(line)) for line in lines])


def defang(text: str) -> str:
    """TEXT for a code span or fence: `<!--` and `-->` escaped, so no HTML comment (and
    no plan marker) can be read in it."""
    return text.replace("<!--", "\\u003c!--").replace("-->", "--\\u003e")


def escape_html(text: str) -> str:
    """TEXT for markdown outside code: `&`, `<` and `>` as entities (no tag, no comment)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
