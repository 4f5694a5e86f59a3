"""An error as people read it (stderr) and as scripts read it (`--format json`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from planner.errors import PlannerError
from planner.render.safe import visible


def write_error(console: Console, error: PlannerError) -> None:
    """`Error: message`, one indented line per detail, then `Hint: ...`; a value quoted
    in them prints no control or bidi character raw."""
    console.print(Text.assemble(("Error:", "bold red"), " ", visible(error.message, keep="\n")))
    for line in error.details:
        console.print(f"  {visible(line)}", markup=False)
    if error.hint:
        console.print("Hint: " + visible(error.hint, keep="\n"), markup=False)


def error_document(error: PlannerError) -> dict[str, Any]:
    """`{"error": {"code", "message", "details", "hint"}}` (see `planner.errors`)."""
    return {
        "error": {
            "code": error.code,
            "message": error.message,
            "details": list(error.details),
            "hint": error.hint,
        }
    }
