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

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from planner.apply import ApplyOptions
from planner.cli.collector import collect_last_cycle
from planner.cli.commands.reconcile import ReconcileArgs, ReconcileOptions
from planner.cli.endpoint import announce_on_stderr
from planner.cli.exits import EXIT_INTERRUPTED
from planner.cli.signals import StopSignals
from planner.cli.target import Target, resolve_target
from planner.cli.workspace import Workspace
from planner.reconcile.cycle import Settings
from planner.reconcile.http import serve_status
from planner.reconcile.leader import election_for
from planner.reconcile.loop import Reconciler
from planner.reconcile.notify import Notifier, check_notify_url
from planner.reconcile.status import StatusBoard
from planner.reconcile.view import make_view
from planner.render.output import write_notice


def run(args: ReconcileArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    command_args = args.workspace.command_args(os.environ)
    return asyncio.run(reconcile(target, args.options, command_args))


async def reconcile(
    target: Target, options: ReconcileOptions, command_args: tuple[str, ...]
) -> int:
    """Run the controller on TARGET until a signal stops it (one cycle with `--once`);
    the exit code."""
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
    server = serve_status(board, listen)
    write_notice([f"Serving the status page, /metrics, /healthz and /readyz at {server.url}/"])
    try:
        yield
    finally:
        server.close()
