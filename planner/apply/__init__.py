"""planner.apply: executing a plan (concurrency, revision waits, bulk delete, recording).

`execute_plan(plan, client=, backend=, doc=, desired=, digest_key=, options=, reporter=)`
is the engine; the `apply` and `destroy` commands are thin wrappers around it. The names
below are imported on first use: a plan renders `planner.apply.results` without loading
the executor.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.apply.context import ApplyOptions
    from planner.apply.executor import execute_plan
    from planner.apply.reporter import NullReporter, Reporter
    from planner.apply.results import ApplyResult, DeploymentResult, Outcome
    from planner.apply.waiter import PollPolicy

__all__ = [
    "ApplyOptions",
    "ApplyResult",
    "DeploymentResult",
    "NullReporter",
    "Outcome",
    "PollPolicy",
    "Reporter",
    "execute_plan",
]
_HOMES = {
    "ApplyOptions": "context",
    "execute_plan": "executor",
    "NullReporter": "reporter",
    "Reporter": "reporter",
    "ApplyResult": "results",
    "DeploymentResult": "results",
    "Outcome": "results",
    "PollPolicy": "waiter",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"planner.apply.{_HOMES[name]}"), name)
