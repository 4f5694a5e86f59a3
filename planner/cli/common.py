"""Options shared by several commands."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
from collections.abc import Coroutine, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from planner.config.environments import ENVIRONMENTS_HINT, environment_names
from planner.config.loader import load_state_table
from planner.config.models import StateConfig
from planner.config.reader import read_raw
from planner.config.var_files import GivenVariables, VarFile, given_variables
from planner.errors import ConfigError
from planner.state.backend import StateBackend
from planner.state.location import (
    is_postgres_url,
    open_backend,
    resolve_state_location,
    state_name,
)

DEFAULT_CONFIG = "planner.toml"
ENV_VAR = "PLANNER_ENV"
T = TypeVar("T")

# Exit codes (a contract: scripts and CI rely on them).
EXIT_OK = 0
EXIT_ERROR = 1  # also a usage error (argparse's 2 would read as "changes" to CI)
EXIT_CHANGES = 2  # plan --detailed-exitcode: the plan has changes
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C)
EXIT_TERMINATED = 143  # SIGTERM (128 + 15), e.g. a cancelled CI job


def exit_code_for(signum: int) -> int:
    """The exit code of a run a signal stopped: 143 for SIGTERM, else 130."""
    return EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED


class Interrupted(KeyboardInterrupt):
    """A signal stopped a command at once; the error boundary exits with `exit_code`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.exit_code = exit_code_for(signum)


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
    parser.add_argument(
        "--var-file",
        action="append",
        dest="var",
        type=VarFile,
        metavar="FILE",
        help="set config variables from a TOML or JSON file of NAME = value (repeatable; "
        "with --var, the later one on the command line wins)",
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


def variables_from(args: argparse.Namespace) -> GivenVariables:
    """The `--var NAME=VALUE` and `--var-file FILE` overrides, in command-line order (the
    last of a name wins)."""
    return given_variables(getattr(args, "var", None) or [])


def add_workspace_options(parser: argparse.ArgumentParser) -> None:
    """`-c`, `--state`, `--env`/`--var` and the endpoint: what `Workspace.from_args` reads."""
    add_config_option(parser)
    add_state_option(parser)
    add_environment_options(parser)
    add_endpoint_options(parser)


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
        metavar="PATH|URL",
        help="state file or postgresql:// URL (else $PLANNER_STATE, else [state] url in the "
        "config, else state/<config stem>.state.json; $PLANNER_STATE_DIR replaces state/)",
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


def open_state_backend(args: argparse.Namespace) -> StateBackend:
    """The state store the command's `-c`, `--state` and `--env` options point at (only
    the config's `[state]` table is read)."""
    config = Path(args.config)
    table = load_state_table(config) if config.is_file() else StateConfig()
    environment = environment_from(args, os.environ)
    return state_backend(args.config, getattr(args, "state", None), table, os.environ, environment)


@contextmanager
def opened_state(args: argparse.Namespace) -> Iterator[StateBackend]:
    """`open_state_backend(args)`, closed (its connections let go) at the end."""
    backend = open_state_backend(args)
    try:
        yield backend
    finally:
        backend.close()


def state_backend(
    config_path: str | os.PathLike[str],
    flag: str | None,
    table: StateConfig,
    environ: Mapping[str, str],
    environment: str | None,
    *,
    config_loaded: bool = False,
) -> StateBackend:
    """The backend of `--state` FLAG, $PLANNER_STATE, `[state]` TABLE or the default file.

    Every state but an explicit file needs the environment, when the config has some: it
    names the state (its file, or its name in PostgreSQL). CONFIG_LOADED: the config was
    loaded for ENVIRONMENT already (which refuses a missing one), so it is not read again."""
    location = resolve_state_location(
        flag, table.url, config_path, environ, environment=environment
    )
    unchecked = environment is None and not config_loaded
    if unchecked and (flag is None or is_postgres_url(location)):
        require_no_environments(Path(config_path))
    name = state_name(config_path, environment, table.name)
    return open_backend(location, name=name, schema=table.schema_)


def require_no_environments(config: Path) -> None:
    """ConfigError listing the environments when the config (if it exists) has some."""
    if not config.is_file():
        return
    names = environment_names(read_raw(config))
    if names:
        raise ConfigError(
            f"{config} has environments ({', '.join(names)}); choose one",
            hint=ENVIRONMENTS_HINT,
        )


def repeated_args(args: argparse.Namespace) -> tuple[str, ...]:
    """The `-c` / `--env` / `--state` options in effect, to repeat in a command we suggest
    (so `planner import ...` from a plan of `-c prod.toml` targets prod.toml; an
    environment from PLANNER_ENV is spelled out, as the command may be pasted elsewhere)."""
    repeated: tuple[str, ...] = ()
    if getattr(args, "config", DEFAULT_CONFIG) != DEFAULT_CONFIG:
        repeated += ("-c", args.config)
    env = environment_from(args, os.environ) if hasattr(args, "env") else None
    if env:
        repeated += ("--env", env)
    if getattr(args, "state", None):
        repeated += ("--state", args.state)
    return repeated


def run_async(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`, its result kept out of the main task: when asyncio.run ends it
    formats the main task, result included (0.25 s for a 10,000-deployment plan)."""
    box: list[T] = []

    async def main() -> None:
        box.append(await work)

    asyncio.run(main())
    return box[0]
