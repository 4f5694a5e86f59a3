"""The one way to make a rich Console: no highlighting, no emoji, colour only on a TTY."""

from __future__ import annotations

import os
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
