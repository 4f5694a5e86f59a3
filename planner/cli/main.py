"""`planner` entry point: argument parsing and the one error boundary.

Each command lives in `planner/cli/cmd_<name>.py` with `register(subparsers, parents)`,
which adds its parser and sets `func` to a callable `(args) -> int`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from rich.text import Text

from planner import __version__
from planner.errors import PlannerError
from planner.render.console import make_console

COMMAND_MODULES = [
    "validate",
    "plan",
    "apply",
    "destroy",
    "import_",
    "state",
    "unlock",
    "providers",
    "repos",
    "serve",
    "schema",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


class Parser(argparse.ArgumentParser):
    """Every parser of the CLI: no abbreviated long options (`--dest` must not mean
    `--destroy`). Subparsers are made of the same class (argparse's default)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})


def build_parser() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors"
    )
    parser = Parser(
        prog="planner",
        description="Plan and apply deployments on the control plane.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"planner.cli.cmd_{name}")
        module.register(sub, [common])
    return parser


def report_error(error: PlannerError) -> None:
    console = make_console(stderr=True)
    console.print(Text.assemble(("Error:", "bold red"), " ", error.message))
    for line in error.details:
        console.print(f"  {line}", markup=False)
    if error.hint:
        console.print(f"Hint: {error.hint}", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; map errors to exit codes (1 error, 130 interrupted)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        result: int = args.func(args)
        return result
    except PlannerError as error:
        if debug:
            raise
        report_error(error)
        return error.exit_code
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # the boundary: one line, no traceback unless --debug
        if debug:
            raise
        if isinstance(error, BrokenPipeError):
            # The reader of stdout went away (`planner plan --format json | head`): not
            # an error of ours to report.
            silence_stdout()
            return EXIT_ERROR
        print(f"Error: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("  (run again with --debug for the traceback)", file=sys.stderr)
        return EXIT_ERROR


def silence_stdout() -> None:
    """Point stdout at devnull, so the flush at exit does not fail again."""
    with contextlib.suppress(OSError, ValueError):  # no real file descriptor behind stdout
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def entrypoint() -> None:
    sys.exit(main())
