"""How an apply tells the world what it is doing, while it does it.

The executor calls a `Reporter`; it never prints. The reporters people see (a live
display on a terminal, timestamped lines elsewhere) live in `planner.render.progress`.
`NullReporter` says nothing (tests, `--quiet` callers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from planner.apply.results import ApplyResult, DeploymentResult


class Reporter(Protocol):
    """Called by the executor: once at the start, on every status change, once at the end."""

    def begin(self, results: Sequence[DeploymentResult]) -> None: ...

    def update(self, result: DeploymentResult) -> None: ...

    def end(self, result: ApplyResult) -> None: ...


class NullReporter:
    def begin(self, results: Sequence[DeploymentResult]) -> None:
        pass

    def update(self, result: DeploymentResult) -> None:
        pass

    def end(self, result: ApplyResult) -> None:
        pass
