"""`planner policy test`: the policies of a config against its deployments, as text or
JSON (the same `PolicyResult`s a plan carries in `policies[]`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from planner.plan.model import PolicyResult
from planner.render.safe import visible

_VERBS = {"deny": "denied", "warn": "warned"}


@dataclass(frozen=True)
class PolicyRun:
    """The policies of one environment of a config against its deployments."""

    config: str
    environment: str | None
    policies: list[str]
    deployments: int
    results: list[PolicyResult]

    @property
    def denials(self) -> list[PolicyResult]:
        return [result for result in self.results if result.severity == "deny"]


def render_policy_runs(runs: Sequence[PolicyRun], output_format: str) -> str:
    if output_format == "json":
        return json.dumps([_run_data(run) for run in runs], indent=2, ensure_ascii=False) + "\n"
    return "".join(_run_text(run) for run in runs)


def _run_data(run: PolicyRun) -> dict[str, object]:
    return {
        "config": run.config,
        "environment": run.environment,
        "policies": run.policies,
        "deployments": run.deployments,
        "results": [result.model_dump(mode="json") for result in run.results],
        "passed": not run.denials,
    }


def _run_text(run: PolicyRun) -> str:
    where = f" (environment {run.environment})" if run.environment else ""
    count, noun = len(run.policies), "policy" if len(run.policies) == 1 else "policies"
    lines = [f"{run.config}{where}: {count} {noun} on {run.deployments} deployment(s)"]
    for result in run.results:
        mark = "✗" if result.severity == "deny" else "!"
        failed = f" (evaluation failed: {result.error})" if result.error else ""
        lines.append(
            f"  {mark} {result.deployment}: {_VERBS[result.severity]} by policy {result.policy}: "
            f"{result.message}{failed}"
        )
    warned = len(run.results) - len(run.denials)
    verdict = "FAILED" if run.denials else "OK"
    lines.append(f"{verdict}: {len(run.denials)} denied, {warned} warned")
    return "\n".join(visible(line) for line in lines) + "\n\n"
