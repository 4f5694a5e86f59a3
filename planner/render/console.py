"""The one way to make a rich Console: no highlighting, no emoji, colour only on a TTY."""

from __future__ import annotations

import os
import re
import sys
from typing import TextIO

from rich.console import Console


def make_console(
    file: TextIO | None = None, *, stderr: bool = False, force_terminal: bool | None = None
) -> Console:
    """A console that prints names like `[x]` literally and honours NO_COLOR.

    `force_terminal` (rich's flag) lets a caller that renders into a buffer ask for colour
    when its real output is a terminal; None lets rich detect it.
    """
    target = file if file is not None else (sys.stderr if stderr else sys.stdout)
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(
        file=target,
        highlight=False,
        emoji=False,
        no_color=no_color,
        soft_wrap=True,
        force_terminal=force_terminal,
    )


# What rich changes in a str it prints (control codes stripped, tabs expanded) and line
# breaks: text without them it writes as it is.
_REWRITTEN = re.compile("[\x00-\x09\x0b-\x1f\x7f]")


def is_plain(console: Console) -> bool:
    """No terminal, no colour: rich prints text as it is (soft-wrapped, unstyled)."""
    return not console.is_terminal and console.color_system is None


def print_plain(console: Console, text: str) -> None:
    """`console.print(text, markup=False)`, without rich's layout when the bytes are known
    (a plain console, and nothing in TEXT rich would strip or expand: it writes TEXT and
    a line break): at fleet scale the layout is most of the cost of the text."""
    if is_plain(console) and not _REWRITTEN.search(text):
        console.file.write(text + "\n")
        return
    console.print(text, markup=False)
