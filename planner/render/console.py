"""The one way to make a rich Console: no highlighting, no emoji, colour only on a TTY."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from rich.console import Console


def make_console(file: TextIO | None = None, *, stderr: bool = False) -> Console:
    """A console that prints names like `[x]` literally and honours NO_COLOR."""
    target = file if file is not None else (sys.stderr if stderr else sys.stdout)
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(
        file=target,
        highlight=False,
        emoji=False,
        no_color=no_color,
        soft_wrap=True,
    )
