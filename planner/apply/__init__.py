"""planner.apply: executing a plan (concurrency, revision waits, bulk delete, recording).

`execute_plan(plan, client=, backend=, doc=, desired=, digest_key=, options=, reporter=)`
is the engine; the `apply` and `destroy` commands are thin wrappers around it.
"""

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
