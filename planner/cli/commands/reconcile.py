"""The arguments of `planner reconcile`: the workspace, and the controller's own options
(`ReconcileOptions`: the interval, the mode, the limits, where to serve and notify)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from planner.cli.options import (
    Options,
    WorkspaceOptions,
    add_lock_lease_option,
    add_lock_timeout_option,
    add_workspace_options,
    positive_seconds,
    seconds,
    whole_number,
)
from planner.state.lease import DEFAULT_LEASE_SECONDS

DEFAULT_LISTEN = "127.0.0.1:9108"
LISTEN_OFF = "off"


@dataclass(frozen=True)
class ReconcileOptions(Options):
    """`planner reconcile`'s own options, as given."""

    interval: float = 300.0
    mode: str = "heal"
    prune: bool = False
    max_changes: int = 10
    listen: str | None = None
    notify_url: str | None = None
    once: bool = False
    format: str = "text"
    lock_timeout: float = 0.0
    lock_lease: float = DEFAULT_LEASE_SECONDS
    wait_timeout: float = 1800.0

    @property
    def listen_address(self) -> str | None:
        """Where to serve HTTP (None: nowhere): `--listen`, else 127.0.0.1:9108 unless
        `--once`."""
        given = self.listen if self.listen is not None else None if self.once else DEFAULT_LISTEN
        return None if given in (None, LISTEN_OFF) else given


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "reconcile",
        parents=parents,
        help="keep the workspace converged to the config (a controller)",
        description="Plan every --interval seconds; in heal mode apply what drifted or "
        "changed (never deleting without --prune); report, notify and serve metrics.",
    )
    add_workspace_options(parser)
    parser.add_argument(
        "--interval", type=positive_seconds, default=300.0, metavar="SECONDS",
        help="seconds between cycles (default: 300)",
    )  # fmt: skip
    parser.add_argument(
        "--mode", choices=["heal", "detect"], default="heal",
        help="heal: apply what the plan finds; detect: report it only, send no write "
        "(default: heal)",
    )  # fmt: skip
    parser.add_argument(
        "--prune", action="store_true",
        help="also delete the deployments removed from the config (default: held back)",
    )  # fmt: skip
    parser.add_argument(
        "--max-changes", type=whole_number, default=10, metavar="N",
        help="refuse (report, do not apply) a cycle that would change more than N "
        "deployments (default: 10)",
    )  # fmt: skip
    parser.add_argument(
        "--listen", default=None, metavar="HOST:PORT",
        help=f"serve /, /metrics, /healthz and /readyz here (default: {DEFAULT_LISTEN}, "
        f"none with --once; `{LISTEN_OFF}`: none)",
    )  # fmt: skip
    parser.add_argument(
        "--notify-url", default=None, metavar="URL",
        help="POST a JSON notification (Slack-compatible `text`) here when drift is found, "
        "healed, or a cycle fails",
    )  # fmt: skip
    parser.add_argument(
        "--once", action="store_true",
        help="run one cycle and exit: 0 in sync, 2 changes left, 1 an error",
    )  # fmt: skip
    parser.add_argument(
        "--format", choices=["text", "json"], default="text",
        help="text, or json: NDJSON events on stdout (schemas/reconcile-events.schema.json)",
    )  # fmt: skip
    parser.add_argument(
        "--wait-timeout", type=seconds, default=1800.0, metavar="SECONDS",
        help="how long a heal waits for each revision (default: 1800)",
    )  # fmt: skip
    add_lock_timeout_option(parser)
    add_lock_lease_option(parser)
    parser.set_defaults(parse=parse, run_module="reconcile", json_lines=True)


@dataclass(frozen=True)
class ReconcileArgs:
    """What `planner reconcile` was given."""

    workspace: WorkspaceOptions
    options: ReconcileOptions


def parse(namespace: argparse.Namespace) -> ReconcileArgs:
    given = vars(namespace)
    return ReconcileArgs(WorkspaceOptions.of(given), ReconcileOptions.of(given))
