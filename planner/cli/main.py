"""`planner` entry point: argument parsing and the one error boundary.

Each command lives in `planner/cli/cmd_<module>.py` with `register(subparsers, parents)`,
which adds its parser and sets `func` to a callable `(args) -> int`. `COMMANDS` names
them with their help lines, so `planner --help` lists every command without importing
one; `main` imports only the module of the command it runs, and chooses the garbage
collector's policy for it (`planner.cli.collector`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from planner import installed_version
from planner.cli.collector import policy_for
from planner.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED, Interrupted
from planner.errors import PlannerError

# name -> (module under planner/cli, help line); the order of `planner --help`.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("cmd_validate", "validate the config file (no network)"),
    "config": ("cmd_config", "print the resolved config of one environment"),
    "policy": ("cmd_policy", "check the config's policies"),
    "plan": ("cmd_plan", "show what apply would change"),
    "apply": ("cmd_apply", "apply the changes of a plan"),
    "show": ("cmd_show", "render a saved plan (text, markdown or JSON)"),
    "destroy": ("cmd_destroy", "delete every deployment in the state"),
    "import": ("cmd_import_", "adopt existing deployments into the state (one, or --all)"),
    "reconcile": ("cmd_reconcile", "keep the workspace converged to the config (a controller)"),
    "status": ("cmd_status", "show every managed deployment as it runs now"),
    "history": ("cmd_history", "list the revisions of a managed deployment"),
    "state": ("cmd_state", "inspect or edit the state"),
    "unlock": ("cmd_unlock", "clear a state lock left by a process that died"),
    "providers": ("cmd_providers", "list OAuth providers"),
    "repos": ("cmd_repos", "list repositories of a git_host integration"),
    "serve": ("cmd_serve", "run the local control plane"),
    "schema": ("cmd_schema", "print or write the JSON Schemas"),
}


class Parser(argparse.ArgumentParser):
    """Every parser of the CLI: no abbreviated long options (`--dest` must not mean
    `--destroy`), usage errors exit 1. Subparsers are made of the same class."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def parse_known_args(  # type: ignore[override]  # one signature for the overloads
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None:
            self.refuse_single_dash(args)
        return super().parse_known_args(args, namespace)

    def refuse_single_dash(self, args: Sequence[str]) -> None:
        """Terraform's one-dash spelling of a long option (`-out=p.json`, `-auto-approve`):
        one line saying the planner spelling, exit 1 (argparse would say "unrecognized
        arguments", or read `-chdir` as `-c hdir`). A parser with subcommands checks only
        the words before its command."""
        has_commands = self._subparsers is not None
        for word in args:
            if word == "--" or (has_commands and not word.startswith("-")):
                return  # the words after a command are its parser's to check
            suggestion = two_dash_spelling(word, self._option_string_actions)
            if suggestion is not None:
                option = word.partition("=")[0]
                self.exit(
                    EXIT_ERROR,
                    f"{self.prog}: error: unknown option {option}: did you mean {suggestion}? "
                    "(planner's long options take two dashes)\n",
                )

    def error(self, message: str) -> NoReturn:
        """A usage error exits 1, like every error: argparse's 2 is the code of
        `plan --detailed-exitcode` for "changes", and CI would read it so."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


# Terraform options whose planner spelling is not the same name with two dashes.
TERRAFORM_SPELLINGS = {
    "json": "--format json",
    "chdir": "-c DIR/planner.toml",
}
_ONE_DASH_OPTION = re.compile(r"-([a-z][a-z0-9-]+)(=.*)?", re.DOTALL)


def two_dash_spelling(word: str, options: Mapping[str, object]) -> str | None:
    """The planner spelling of WORD when it is a long option of OPTIONS written with one
    dash (`-out=p.json` -> `--out`; `-json` -> `--format json`), else None."""
    found = _ONE_DASH_OPTION.fullmatch(word)
    if found is None:
        return None
    name = found.group(1)
    if f"--{name}" in options:
        return f"--{name}"
    spelling = TERRAFORM_SPELLINGS.get(name)
    if spelling is None or spelling.split()[0] not in options:
        return None  # not an option of this command, in any spelling: argparse says so
    return spelling


class VersionAction(argparse.Action):
    """`--version`, as argparse's own, but the version is looked up only when asked."""

    HELP = "show program's version number and exit"

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        sys.stdout.write(f"planner {installed_version()}\n")  # stdout, as argparse's
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given ARGV, only the command ARGV names is imported and
    registered in full (the others are listed by name and help line)."""
    common = Parser(add_help=False)
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors"
    )
    parser = Parser(
        prog="planner",
        description="Plan and apply deployments on the control plane.",
        parents=[common],
    )
    parser.add_argument("--version", action=VersionAction, help=VersionAction.HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = None if argv is None else chosen_command(argv)
    for name, (module_name, help_line) in COMMANDS.items():
        if argv is None or name == chosen:
            module = importlib.import_module(f"planner.cli.{module_name}")
            module.register(sub, [common])
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command ARGV runs: its first word that is not an option (the top-level
    options take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def report_error(error: PlannerError, output_format: str | None, json_lines: bool) -> None:
    """The error on stderr; with `--format json`, also its JSON document on stdout (for
    the commands that stream NDJSON events, as their last line: an `error` event)."""
    # Imported here: rich is not needed for `planner --help` or a command that succeeds.
    from planner.render.console import make_console
    from planner.render.errors import error_document, write_error
    from planner.render.output import write_json

    write_error(make_console(stderr=True), error)
    if output_format != "json":
        return
    if json_lines:
        from planner.render.apply_events import error_event, write_event

        write_event(sys.stdout, error_event(error))
    else:
        write_json(make_console(), error_document(error))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; map errors to exit codes (1 error, 130 interrupted, 143 terminated)."""
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(words).parse_args(words)
    debug = bool(getattr(args, "debug", False))
    try:
        with policy_for(args.command):  # the collector's, for this command (see collector)
            result: int = args.func(args)
        return result
    except PlannerError as error:
        if debug:
            raise
        report_error(error, getattr(args, "format", None), getattr(args, "json_lines", False))
        return error.exit_code
    except KeyboardInterrupt as stopped:
        print("Interrupted.", file=sys.stderr)
        return stopped.exit_code if isinstance(stopped, Interrupted) else EXIT_INTERRUPTED
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
