"""Asking for `yes` before apply or destroy changes anything, `import --all` adopts, or
`rollback` redeploys."""

from __future__ import annotations

import signal
import sys

from planner.cli.signals import raise_terminated
from planner.errors import PlannerError

QUESTIONS = {
    "destroy": "Do you really want to destroy every deployment in the state?",
    "import --all": "Do you want to adopt these deployments into the state?",
    "rollback": "Do you want to roll back this deployment?",
}


def confirm(auto_approve: bool, operation: str, *, output_format: str = "text") -> None:
    """Ask for `yes` on a terminal; refuse to go on without one unless --auto-approve
    (with `--format json` stdout is for events only: no question is asked there)."""
    if auto_approve:
        return
    if output_format == "json":
        raise PlannerError(
            "cannot ask for confirmation with --format json",
            hint=f"pass --auto-approve to {operation} without asking"
            + (", or apply a saved plan" if operation in ("apply", "destroy") else ""),
        )
    if not sys.stdin.isatty():
        raise PlannerError(
            "cannot ask for confirmation: the input is not a terminal",
            hint=f"pass --auto-approve to {operation} without asking",
        )
    question = QUESTIONS.get(operation, "Do you want to apply these changes?")
    print(f"\n{question}\n  Only 'yes' will be accepted.\n")
    answer = ask("  Enter a value: ")
    if answer != "yes":
        raise PlannerError(f"{operation[0].upper()}{operation[1:]} cancelled.")


def ask(prompt: str) -> str | None:
    """The answer typed, or None at end of input (Ctrl-D).

    Ctrl-C and SIGTERM must stop at once: the loop's handlers only cancel the task,
    which a blocking input() never notices, so plain handlers raise while waiting."""
    try:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        previous_term = signal.signal(signal.SIGTERM, raise_terminated)
    except ValueError:  # not the main thread: nothing to restore
        previous = previous_term = None
    try:
        return input(prompt).strip()
    except EOFError:
        return None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
            signal.signal(signal.SIGTERM, previous_term)
