"""The cyclic garbage collector's policy of a `planner` process, told at the command's edge.

The dispatcher (`planner.cli.main`) chooses it once, for the command it runs
(`policy_for`); the command layer says where the command builds what it keeps and where it
executes (`planner.cli.workspace`, the commands' runs). Library code (plan, apply,
reconcile, state) never touches the collector.

- A command that runs once (plan, apply, destroy, import...) keeps what it builds for as
  long as it runs: its modules, the config, the state, the live deployments, the plan.
  Those are built with the collector off and then frozen out of later collections
  (`long_lived_objects`; what that saves: docs/guides/performance.md).
- A command that runs until it is stopped (`reconcile`, `serve`) keeps nothing a cycle
  builds: it freezes nothing (`long_lived_objects` leaves the collector alone), or a
  controller's memory would grow with every cycle; `reconcile` collects what a cycle
  left as it begins the next (`collect_last_cycle`).
- Executing a plan makes and drops many objects (requests, responses, tasks): the
  youngest generation is collected every 10,000 new objects instead of 700
  (`short_lived_objects`), whatever the command.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# the commands that run until stopped (see the module docstring)
RUN_UNTIL_STOPPED = frozenset({"reconcile", "serve"})


class _Policy:
    """What `long_lived_objects` does in this process: freeze, or leave the collector be."""

    freezes = False


_POLICY = _Policy()


@contextmanager
def policy_for(command: str | None) -> Iterator[None]:
    """Run COMMAND under its policy (see the module docstring); the one before is back
    afterwards (a test may run several commands in one process)."""
    before = _POLICY.freezes
    _POLICY.freezes = command not in RUN_UNTIL_STOPPED
    try:
        yield
    finally:
        _POLICY.freezes = before


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Build objects that live as long as the command (a config, a plan) without the
    cyclic garbage collector, then freeze them out of later collections (`gc.freeze`).
    Nothing at all unless the command's policy freezes: a command that runs until
    stopped, and code run outside `policy_for` (a test, a caller of the library), keep
    the collector as it is."""
    if not _POLICY.freezes:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@contextmanager
def short_lived_objects(threshold: int = 10_000) -> Iterator[None]:
    """Run a phase that makes and drops many objects (an apply's requests, responses and
    tasks) with the youngest generation collected every THRESHOLD new objects instead of
    700: most are freed by reference counting before a collection would look at them, and
    the older generations are collected that much less often."""
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, threshold), *older)
    try:
        yield
    finally:
        gc.set_threshold(young, *older)


def collect_last_cycle() -> None:
    """Collect what the cycle before left, as a command that runs until stopped begins
    the next: a cycle's workspace (a whole embedded control plane with it) is held in
    reference cycles, which the collector's generations would otherwise keep for many
    cycles. A controller running for months keeps a flat memory."""
    gc.collect()
