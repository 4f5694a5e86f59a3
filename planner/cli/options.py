"""The options commands share: how they are added to a parser, and the frozen values a
command's `run` builds from its Namespace, once (nothing below `run` sees the Namespace).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Self

from planner.api.vocabulary import DIALECT_CHOICES
from planner.config.var_files import GivenVariables, VarFile, given_variables
from planner.state.lease import DEFAULT_HEARTBEAT_SECONDS, DEFAULT_LEASE_SECONDS

DEFAULT_CONFIG = "planner.toml"
ENV_VAR = "PLANNER_ENV"
Variables = tuple[tuple[str, str] | VarFile, ...]  # in command-line order


class Options:
    """A frozen options value; `of(vars(args))` in a command's `run` builds it."""

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> Self:
        """The value of the options GIVEN holds (a parsed command line, by dest name);
        an option the command does not take keeps its default."""
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        values = {n: tuple(v) if isinstance(v, list) else v for n, v in given.items()}
        return cls(**{name: values[name] for name in names if name in values})


@dataclass(frozen=True)
class WorkspaceOptions(Options):
    """`-c`, `--state`, `--env`, `--var`, `--base-url` and `--dialect` as given (None: not
    given)."""

    config: str = DEFAULT_CONFIG
    state: str | None = None
    env: str | None = None
    var: Variables = ()
    base_url: str | None = None
    dialect: str | None = None

    @property
    def is_config_given(self) -> bool:
        return self.config != DEFAULT_CONFIG

    def environment(self, environ: Mapping[str, str]) -> str | None:
        """`--env`, else $PLANNER_ENV, else None (a config without environments)."""
        return self.env or environ.get(ENV_VAR) or None

    def variable_values(self) -> GivenVariables:
        """The `--var NAME=VALUE` and `--var-file FILE` overrides, in command-line order
        (the last of a name wins; the files are read now)."""
        return given_variables(self.var)

    def command_args(self, environ: Mapping[str, str]) -> tuple[str, ...]:
        """The `-c` / `--env` / `--state` options in effect, to repeat in a command we
        suggest (an environment from PLANNER_ENV is spelled out: the command may be
        pasted elsewhere)."""
        repeated: tuple[str, ...] = ("-c", self.config) if self.is_config_given else ()
        environment = self.environment(environ)
        repeated += ("--env", environment) if environment else ()
        return repeated + self.state_args()

    def state_args(self) -> tuple[str, ...]:
        """`--state` as given, to repeat in a command we suggest (none: not given)."""
        return ("--state", self.state) if self.state else ()


@dataclass(frozen=True)
class RunOptions(Options):
    """What `apply` and `destroy` take beyond the workspace: confirmation, concurrency,
    waits, the lock and the output format."""

    parallelism: int
    auto_approve: bool = False
    no_wait: bool = False
    wait_timeout: float = 1800.0
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    format: str = "text"


@dataclass(frozen=True)
class OutputOptions(Options):
    """How a plan is printed: `--format` and `--verbose`."""

    format: str = "text"
    verbose: bool = False


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


def add_workspace_options(parser: argparse.ArgumentParser) -> None:
    """`-c`, `--state`, `--env`/`--var` and the endpoint: a `WorkspaceOptions`."""
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
    parser.add_argument(
        "--dialect",
        choices=DIALECT_CHOICES,
        default=None,
        help="the words the control plane speaks: seed, service (the real service's) or "
        "auto, read from its /openapi.json (else PLANNER_DIALECT, else [control_plane] "
        "dialect, else auto)",
    )


def add_format_option(parser: argparse.ArgumentParser, choices: list[str]) -> None:
    parser.add_argument("--format", choices=choices, default=choices[0], help="output format")


def add_state_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state",
        default=None,
        metavar="PATH|URL",
        help="state file (relative to the working directory) or postgresql:// URL (else "
        "$PLANNER_STATE, else [state] url in the config, else state/<config stem>.state.json "
        "beside the config; $PLANNER_STATE_DIR replaces state/)",
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


def whole_number(text: str, minimum: int = 0) -> int:
    """argparse type: a whole number >= MINIMUM."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, not {value}")
    return value


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    return whole_number(text, 1)


def add_lock_timeout_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock-timeout",
        type=seconds,
        default=0.0,
        metavar="SECONDS",
        help="wait up to SECONDS for the state lock (default: 0, fail at once)",
    )


def add_lock_lease_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lock-lease",
        type=positive_seconds,
        default=DEFAULT_LEASE_SECONDS,
        metavar="SECONDS",
        help="how long the lock stays this run's if it stops renewing it (a heartbeat "
        f"every {DEFAULT_HEARTBEAT_SECONDS:g} s or a third of the lease); a run taking "
        f"over a lock left by a vanished holder waits that long (default: "
        f"{DEFAULT_LEASE_SECONDS:g})",
    )


def add_lock_options(parser: argparse.ArgumentParser) -> None:
    """`--lock-timeout` and `--lock-lease`: every command that takes the state lock."""
    add_lock_timeout_option(parser)
    add_lock_lease_option(parser)


def positive_seconds(text: str) -> float:
    """argparse type: seconds, more than 0."""
    value = seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def add_selection_options(parser: argparse.ArgumentParser, verb: str, refresh_only: str) -> None:
    """`--only`, `--exclude`, `--replace` (the names VERB works on) and `--refresh-only`."""
    for flag, text in (
        ("--only", f"{verb} only NAME (repeatable)"),
        ("--exclude", "leave NAME out (repeatable)"),
        ("--replace", "delete and re-create NAME (repeatable)"),
    ):
        parser.add_argument(flag, action="append", default=[], metavar="NAME", help=text)
    parser.add_argument("--refresh-only", action="store_true", help=refresh_only)


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options `apply` and `destroy` share (a `WorkspaceOptions` and `RunOptions`)."""
    from planner.apply.defaults import DEFAULT_PARALLELISM  # the apply layer: only here

    add_workspace_options(parser)
    parser.add_argument(
        "--auto-approve", action="store_true", help="apply without asking for confirmation"
    )
    parser.add_argument(
        "--parallelism",
        type=positive_int,
        default=DEFAULT_PARALLELISM,
        metavar="N",
        help=f"creates and PATCHes in flight at once (default: {DEFAULT_PARALLELISM}); "
        "revision polls have their own budget",
    )
    add_wait_options(parser, "revisions", "each revision")
    add_lock_options(parser)
    parser.add_argument(
        "--format",
        choices=["text", "json"],
        default="text",
        help="text, or json: NDJSON events on stdout, one per line, the last a summary "
        "(schemas/apply-events.schema.json)",
    )
    parser.set_defaults(json_lines=True)  # a --format json error is an event line too


@dataclass(frozen=True)
class ImportAllOptions:
    """`--generate-config FILE`, `--name-contains`, `--force`, `--lock-timeout`,
    `--lock-lease` (these two also a single import's) and `--auto-approve`."""

    generate_config: str | None
    name_contains: str | None = None
    force: bool = False
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    auto_approve: bool = False


def add_wait_options(parser: argparse.ArgumentParser, waited: str, each: str) -> None:
    """`--no-wait` and `--wait-timeout`: whether and how long to wait for WAITED (the
    rollout's revisions), EACH the one a timeout counts for."""
    parser.add_argument(
        "--no-wait", action="store_true", help=f"return once submitted; do not wait for {waited}"
    )
    parser.add_argument(
        "--wait-timeout",
        type=seconds,
        default=1800.0,
        metavar="SECONDS",
        help=f"how long to wait for {each} (default: 1800)",
    )
