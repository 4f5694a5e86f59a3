"""`planner` entry point: argument parsing, the dispatch and the one error boundary.

A command is two modules. `planner/cli/commands/<module>.py` holds its arguments:
`register(subparsers, parents)` adds its parser and sets `parse` (the namespace -> the
command's frozen arguments value, the rules that combine flags checked) and `run_module`;
`planner/cli/run/<run_module>.py` holds `run(arguments) -> int`. `COMMANDS` names the
commands with their help lines, so `planner --help` lists every command without importing
one; `main` imports the arguments module of the command it runs and, once they parse, its
run module only (`run_command`: the one lazy seam of the command layer), and chooses the garbage
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
from planner.cli.collector import long_lived_objects, policy_for
from planner.cli.exits import EXIT_ERROR, EXIT_INTERRUPTED, Interrupted
from planner.errors import PlannerError

# name -> (module under planner/cli/commands, help line); the order of `planner --help`.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "validate the config file (no network)"),
    "config": ("config", "print the resolved config of one environment"),
    "policy": ("policy", "check the config's policies"),
    "plan": ("plan", "show what apply would change"),
    "apply": ("apply", "apply the changes of a plan"),
    "show": ("show", "render a saved plan (text, markdown or JSON)"),
    "destroy": ("destroy", "delete every deployment in the state"),
    "import": ("importing", "adopt existing deployments into the state (one, or --all)"),
    "reconcile": ("reconcile", "keep the workspace converged to the config (a controller)"),
    "status": ("status", "show every managed deployment as it runs now"),
    "history": ("history", "list the revisions of a managed deployment"),
    "rollback": ("rollback", "redeploy an earlier revision of a deployment and hold it there"),
    "release": ("release", "lift a rollback's hold: plans and applies manage the deployment again"),
    "promote": ("promote", "write one environment's revision values into another's config"),
    "state": ("state", "inspect or edit the state"),
    "unlock": ("unlock", "clear a state lock left by a process that died"),
    "providers": ("providers", "list OAuth providers"),
    "repos": ("repos", "list repositories of a git integration"),
    "serve": ("serve", "run the local control plane"),
    "schema": ("schema", "print or write the JSON Schemas"),
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
            module = importlib.import_module(f"planner.cli.commands.{module_name}")
            module.register(sub, [common])
        else:
            sub.add_parser(name, help=help_line, add_help=False)
    return parser


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command ARGV runs: its first word that is not an option (the top-level
    options take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def run_command(args: argparse.Namespace) -> int:
    """Run the command ARGS chose: its arguments value first (a rule of flags that do not
    go together fails before anything is imported or read), then its run module, the only
    one imported."""
    arguments = args.parse(args)
    with long_lived_objects():  # a run's modules live as long as the process
        run_module = importlib.import_module(f"planner.cli.run.{args.run_module}")
    code: int = run_module.run(arguments)
    return code


def report_error(error: PlannerError, output_format: str | None, json_lines: bool) -> None:
    """The error on stderr; with `--format json`, also its JSON document on stdout (for
    the commands that stream NDJSON events, as their last line: an `error` event)."""
    # Imported here: rich is not needed for `planner --help` or a command that succeeds.
    from planner.cli.error_report import write_error_report

    write_error_report(error, output_format, json_lines)


def repeat_given_options(error: PlannerError, given: Mapping[str, Any]) -> None:
    """ERROR's hint, its suggested command repeating the `-c`, `--env` and `--state` the
    run was GIVEN (a lock's `planner unlock ID` then acts on the same state)."""
    if error.hint_for is not None:
        from planner.cli.options import WorkspaceOptions

        error.hint = error.hint_for(WorkspaceOptions.of(given).command_args(os.environ))


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; map errors to exit codes (1 error, 130 interrupted, 143 terminated)."""
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(words).parse_args(words)
    debug = bool(getattr(args, "debug", False))
    try:
        with policy_for(args.command):  # the collector's, for this command (see collector)
            return run_command(args)
    except PlannerError as error:
        if debug:
            raise
        repeat_given_options(error, vars(args))
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
