"""The CI step summary: when `GITHUB_STEP_SUMMARY` names a file, `plan` and `apply` append
their markdown to it (GitHub shows it on the run's page).

Appending never fails the command: a summary that cannot be written is a warning on
stderr, since the plan or apply itself succeeded.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

from planner.files import os_reason

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def append_step_summary(
    markdown: str | Callable[[], str], environ: Mapping[str, str] | None = None
) -> None:
    """Append MARKDOWN (and a blank line) to $GITHUB_STEP_SUMMARY when it is set (a
    callable: rendered only then)."""
    path = (os.environ if environ is None else environ).get(STEP_SUMMARY_ENV)
    if not path:
        return
    if callable(markdown):
        markdown = markdown()
    try:
        with open(path, "a", encoding="utf-8") as summary:
            summary.write(markdown.rstrip("\n") + "\n\n")
    except OSError as error:
        print(
            f"Warning: cannot append to {STEP_SUMMARY_ENV} {path}: {os_reason(error)}",
            file=sys.stderr,
        )
