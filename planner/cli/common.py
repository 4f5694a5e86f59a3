"""Options shared by several commands."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path

from planner.config.environments import ENVIRONMENTS_HINT, environment_names
from planner.config.reader import read_raw
from planner.errors import ConfigError
from planner.state.localfile import LocalFileBackend
from planner.state.location import resolve_state_path

DEFAULT_CONFIG = "planner.toml"
ENV_VAR = "PLANNER_ENV"

# Exit codes (a contract: scripts and CI rely on them).
EXIT_OK = 0
EXIT_ERROR = 1  # also a usage error (argparse's 2 would read as "changes" to CI)
EXIT_CHANGES = 2  # plan --detailed-exitcode: the plan has changes
EXIT_INTERRUPTED = 130


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c",
        "--config",
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"config file, TOML or JSON (default: {DEFAULT_CONFIG})",
    )


def add_environment_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--env",
        default=None,
        metavar="NAME",
        help=f"the config's environment to use (else ${ENV_VAR}); required when it has some",
    )
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        type=variable_assignment,
        metavar="NAME=VALUE",
        help="set a config variable (repeatable; wins over PLANNER_VAR_NAME)",
    )


def variable_assignment(text: str) -> tuple[str, str]:
    """argparse type: `NAME=VALUE` (the value may be empty or hold '=')."""
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name, value


def environment_from(args: argparse.Namespace, environ: Mapping[str, str]) -> str | None:
    """`--env`, else $PLANNER_ENV, else None (a config without environments)."""
    return getattr(args, "env", None) or environ.get(ENV_VAR) or None


def variables_from(args: argparse.Namespace) -> dict[str, str]:
    """The `--var NAME=VALUE` overrides (the last of a name wins)."""
    return dict(getattr(args, "var", None) or [])


def add_endpoint_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help="control plane URL (else PLANNER_BASE_URL, else the config, else the embedded one)",
    )


def add_format_option(parser: argparse.ArgumentParser, choices: list[str]) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")


def add_state_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state",
        default=None,
        metavar="PATH",
        help="state file (default: state/<config stem>.state.json; "
        "$PLANNER_STATE_DIR replaces state/)",
    )


def seconds(text: str) -> float:
    """argparse type: a finite number of seconds >= 0 (refuses nan and inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, not {text!r}")
    return value


def add_lock_timeout_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock-timeout",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait up to SECONDS for the state lock (default: 0, fail at once)",
    )


def state_path_from_args(args: argparse.Namespace) -> Path:
    """`--state`, else the default state path of `-c FILE` (and of its environment: one
    is required when the config, if it exists, has environments)."""
    state = getattr(args, "state", None)
    environment = environment_from(args, os.environ)
    if state is None and environment is None and Path(args.config).is_file():
        names = environment_names(read_raw(Path(args.config)))
        if names:
            raise ConfigError(
                f"{args.config} has environments ({', '.join(names)}); choose one",
                hint=ENVIRONMENTS_HINT,
            )
    return resolve_state_path(state, args.config, environment=environment)


def open_state_backend(args: argparse.Namespace) -> LocalFileBackend:
    """The state store the command's `-c` / `--state` options point at."""
    return LocalFileBackend(state_path_from_args(args))


def repeated_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The `-c` / `--env` / `--state` options the user gave, to repeat in a command we
    suggest (so `planner import ...` from a plan of `-c prod.toml --env prod` targets
    that config's prod environment)."""
    repeated: tuple[str, ...] = ()
    if getattr(args, "config", DEFAULT_CONFIG) != DEFAULT_CONFIG:
        repeated += ("-c", args.config)
    if getattr(args, "env", None):
        repeated += ("--env", args.env)
    if getattr(args, "state", None):
        repeated += ("--state", args.state)
    return repeated
