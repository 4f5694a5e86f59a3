"""How an apply tells the world what it is doing, while it does it.

The executor calls a `Reporter`; it never prints. The reporters people see (a live
display on a terminal, timestamped lines elsewhere) live in `planner.render.progress`.
`NullReporter` says nothing (tests, `--quiet` callers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from planner.api.retry import RetryNotice
from planner.apply.results import ApplyResult, DeploymentResult


class Reporter(Protocol):
    """Called by the executor: once at the start, on every status change, once at the end;
    and between them on each retry of a request and each 429 pause of every request
    (DEPLOYMENT: whose request it was, None for a request of no one deployment)."""

    def begin(self, results: Sequence[DeploymentResult]) -> None: ...

    def update(self, result: DeploymentResult) -> None: ...

    def end(self, result: ApplyResult) -> None: ...

    def retry(self, notice: RetryNotice, deployment: str | None) -> None: ...

    def pause(self, seconds: float, deployment: str | None) -> None: ...


class NullReporter:
    def begin(self, results: Sequence[DeploymentResult]) -> None:
        pass

    def update(self, result: DeploymentResult) -> None:
        pass

    def end(self, result: ApplyResult) -> None:
        pass

    def retry(self, notice: RetryNotice, deployment: str | None) -> None:
        pass

    def pause(self, seconds: float, deployment: str | None) -> None:
        pass
