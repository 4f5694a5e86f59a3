"""`planner reconcile`: keep the workspace converged to the config, without a person.

Wiring only: the loop is `planner.reconcile.loop.Reconciler`, one cycle
`planner.reconcile.cycle.Cycle` (the plan and apply engine), the election
`planner.reconcile.leader`. The target (endpoint, state, environment, variables) is
resolved once; the config file is read again every cycle. HTTP on `--listen`
(`planner.reconcile.http`: `/`, `/metrics`, `/healthz`, `/readyz`), on by default unless
`--once`; `--listen off` turns it off.

Exit codes: the loop exits 0 once a SIGTERM ended it (the heal in progress wound down as
an apply's first Ctrl-C, the leadership given up), 130 for SIGINT, 143 after a second
signal, 1 on an error before the loop runs (a second replica on a file state, a bad
config). `--once`: 0 in sync after the cycle (nothing to change, or everything healed),
2 changes left (detect found some, `--max-changes` refused them, deletions held back
without `--prune`), 1 an error (a plan with errors, a failed deployment, a locked state,
another replica leads).
"""

from __future__ import annotations

import argparse
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from planner.cli.collector import collect_last_cycle
from planner.cli.exits import EXIT_INTERRUPTED
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

# The engine, the client and the reconcile package are imported where they run: parsing
# the command line (`planner reconcile --help`) needs none of them.
if TYPE_CHECKING:
    from planner.cli.target import Target
    from planner.cli.workspace import Workspace
    from planner.reconcile.status import StatusBoard

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
    parser.set_defaults(func=run, json_lines=True)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from planner.cli.target import resolve_target

    workspace = WorkspaceOptions.of(vars(args))
    options = ReconcileOptions.of(vars(args))
    target = resolve_target(workspace, os.environ)
    return asyncio.run(reconcile(target, options, workspace.command_args(os.environ)))


async def reconcile(
    target: Target, options: ReconcileOptions, command_args: tuple[str, ...]
) -> int:
    # Imported here: the reconcile package (and the HTTP server) only for this command.
    import asyncio

    from planner.apply import ApplyOptions
    from planner.cli.signals import StopSignals
    from planner.reconcile.cycle import Settings
    from planner.reconcile.leader import election_for
    from planner.reconcile.loop import Reconciler
    from planner.reconcile.notify import Notifier, check_notify_url
    from planner.reconcile.status import StatusBoard
    from planner.reconcile.view import make_view

    if options.notify_url is not None:
        check_notify_url(options.notify_url)
    view = make_view(options.format)
    settings = Settings(
        mode="detect" if options.mode == "detect" else "heal",
        interval=options.interval,
        prune=options.prune,
        max_changes=options.max_changes,
        once=options.once,
        lock_timeout=options.lock_timeout,
        lock_lease=options.lock_lease,
        apply=ApplyOptions(wait_timeout=options.wait_timeout),
        command_args=command_args,
    )
    backend = target.state.open()
    try:
        leadership = election_for(backend)
        where = backend.location
    finally:
        backend.close()
    board = StatusBoard()
    stop = asyncio.Event()
    signals = StopSignals(view.stopping)
    notifier = Notifier(options.notify_url, view.warning) if options.notify_url else None
    reconciler = Reconciler(
        settings, workspace_opener(target), leadership, board, view, stop, notifier, where
    )
    try:
        with signals.installed(), signals.executing(stop):
            try:
                if leadership.exclusive:  # a second replica (a file state): refused first
                    await asyncio.to_thread(leadership.try_lead, settings.lock_lease)
                with serving(board, options.listen_address):
                    code = await reconciler.run()
            finally:
                leadership.close()  # run() gave it up already, unless it never ran
    finally:
        if notifier is not None:
            await notifier.aclose()
    if signals.received is not None:
        code = 0 if signals.received == signal.SIGTERM else EXIT_INTERRUPTED
    view.stopped(signals.received, reconciler.cycles, code)
    return code


def workspace_opener(target: Target) -> Callable[[], Workspace]:
    """Opens TARGET's workspace, reading the config file again each time (announcing the
    embedded control plane once), after collecting what the cycle before left."""
    from planner.cli.endpoint import announce_on_stderr
    from planner.cli.workspace import Workspace

    fresh = replace(target, raw=None)
    announced: list[str] = []

    def announce(text: str) -> None:
        if not announced:
            announced.append(text)
            announce_on_stderr(text)

    def opened() -> Workspace:
        collect_last_cycle()
        return Workspace.open(fresh, announce=announce)

    return opened


@contextmanager
def serving(board: StatusBoard, listen: str | None) -> Iterator[None]:
    """The status board served over HTTP on LISTEN for the time of the run."""
    if listen is None:
        yield
        return
    from planner.reconcile.http import serve_status
    from planner.render.output import write_notice

    server = serve_status(board, listen)
    write_notice([f"Serving the status page, /metrics, /healthz and /readyz at {server.url}/"])
    try:
        yield
    finally:
        server.close()
