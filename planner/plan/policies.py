"""Guardrails: the config's `[policies]`, CEL expressions evaluated for every deployment
of a plan (PRODUCT.md "Guardrails: policies on the plan").

The CEL runtime is `cel-expr-python` (Google's CEL C++ runtime; chosen by measurement,
see `benchmarks/bench_policies.py`). An expression is compiled once, type-checked against
the four inputs, and evaluated per deployment with:

- `deployment`: the resolved desired config (`name`, `address`, `source`,
  `source_config`, `source_revision_config` as the config sets them, `secret_names`,
  `secret_env` (secret name -> the environment variable it is read from),
  `secret_references`, `lifecycle`). For a deployment being deleted (its table left the
  config, or `--destroy`) it is the deployment as the state recorded it when last
  applied, `lifecycle.protect` included, so "no deletion of protected agents" can be
  written.
- `change`: `action` and `fields[]` (`path`, `class`, `before`, `after`), as the plan
  shows them: secret values are `(sensitive)` already.
- `live`: the observed deployment (its secrets as `secret_names` only) or null.
- `environment`: the config's environment, or null.

Invariants: no secret value is ever an input (the desired config's secrets are names,
the plan's are masked, the live ones are dropped); inputs an expression does not name
are not built (a plan of 10,000 deployments pays only for what its policies read); an
evaluation that fails, or gives anything but a bool, is a deny.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.config.diagnostics import with_article
from planner.config.models import Policy
from planner.errors import ConfigError
from planner.plan.changes import build_create
from planner.plan.model import Action, Change, Plan, PlanProblem, PolicyResult
from planner.state.records import RecordedDeployment

INPUTS = ("deployment", "change", "live", "environment")
DENY, WARN = "deny", "warn"
_WORDS = {name: re.compile(rf"\b{name}\b") for name in INPUTS}


@dataclass(frozen=True)
class CompiledPolicy:
    """A policy and its CEL program; `inputs`: the inputs its expression names; `env`:
    the CEL environment it was compiled in (activations are made there, once per
    deployment for every policy)."""

    policy: Policy
    program: Any
    inputs: frozenset[str]
    env: Any = None


@dataclass(frozen=True)
class Subject:
    """One deployment of a plan, as the policies see it (built into inputs on demand)."""

    address: str
    change: Change | None
    desired: DesiredDeployment | None
    recorded: RecordedDeployment | None
    observed: Deployment | None


def _environment() -> Any:
    from cel_expr_python import cel  # loaded only by a config with policies

    dyn = cel.Type.DYN
    return cel.NewEnv(variables=dict.fromkeys(INPUTS, dyn)), cel


def compile_policies(policies: Sequence[Policy], label: str) -> list[CompiledPolicy]:
    """Every policy compiled and type-checked; one ConfigError naming each that does not
    compile (`LABEL: policies.NAME.expression: ...`)."""
    if not policies:
        return []
    env, cel = _environment()
    compiled, problems = [], []
    for policy in policies:
        try:
            program = env.compile(policy.expression)
            kind = program.return_type()
            if kind not in (cel.Type.BOOL, cel.Type.DYN):
                kind_name = with_article(kind.name().lower())
                raise RuntimeError(f"it gives {kind_name}, not true or false")
        except RuntimeError as error:
            problems.append(f"{label}: policies.{policy.name}.expression: {_reason(error)}")
            continue
        inputs = frozenset(n for n, word in _WORDS.items() if word.search(policy.expression))
        compiled.append(CompiledPolicy(policy, program, inputs, env))
    if problems:
        count = "1 policy does" if len(problems) == 1 else f"{len(problems)} policies do"
        raise ConfigError(
            f"{label}: {count} not compile",
            details=problems,
            hint="policies are CEL expressions (see docs/guides/guardrails.md)",
        )
    return compiled


def _reason(error: Exception) -> str:
    """The library's message without its status prefix, on one line."""
    text = str(error).removeprefix("INVALID_ARGUMENT: ").replace("ERROR: <input>:", "at ")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "does not compile: " + " ".join(lines[:1]).replace(" [INVALID_ARGUMENT]", "")


def evaluate(
    compiled: Sequence[CompiledPolicy], subjects: Iterable[Subject], environment: str | None
) -> list[PolicyResult]:
    """The results that are not a pass, by deployment then policy, in plan order."""
    if not compiled:
        return []
    needed = frozenset().union(*(c.inputs for c in compiled))
    env = compiled[0].env
    results = []
    for subject in subjects:
        activation = env.Activation(inputs_of(subject, environment, needed))
        for policy in compiled:
            result = _evaluate_one(policy, subject.address, activation)
            if result is not None:
                results.append(result)
    return results


def _evaluate_one(compiled: CompiledPolicy, address: str, activation: Any) -> PolicyResult | None:
    policy = compiled.policy
    error = None
    try:
        value = compiled.program.eval(activation)
        outcome = value.value()
        if value.type().name() == "ERROR" or not isinstance(outcome, bool):
            error = _evaluation_error(value, outcome)
        elif outcome:
            return None
    except RuntimeError as raised:
        error = str(raised)
    severity = DENY if error is not None else policy.severity
    return PolicyResult(
        policy=policy.name,
        deployment=address,
        severity=severity,
        message=policy.message,
        error=error,
    )


def _evaluation_error(value: Any, outcome: Any) -> str:
    kind = value.type().name()
    if kind == "ERROR":
        return str(outcome)
    return f"it gave {with_article(kind.lower())}, not true or false"


def inputs_of(subject: Subject, environment: str | None, needed: frozenset[str]) -> dict[str, Any]:
    """The CEL inputs of one deployment; only those in NEEDED are built (others null)."""
    data: dict[str, Any] = dict.fromkeys(INPUTS)
    data["environment"] = environment
    if "deployment" in needed:
        data["deployment"] = deployment_input(subject)
    if "change" in needed:
        data["change"] = change_input(subject.change)
    if "live" in needed and subject.observed is not None:
        data["live"] = live_input(subject.observed)
    return data


def deployment_input(subject: Subject) -> dict[str, Any]:
    """The desired config of the deployment; the recorded one when it is being deleted."""
    desired = subject.desired
    if desired is not None:
        return {
            "name": desired.api_name,
            "address": desired.name,
            "source": str(desired.source),
            "source_config": desired.source_config.model_dump(mode="json", exclude_unset=True),
            "source_revision_config": desired.source_revision_config.model_dump(
                mode="json", exclude_unset=True
            ),
            "secret_names": sorted(desired.secrets),
            "secret_env": dict(desired.secret_env),
            "secret_references": _references(desired.secret_references),
            "lifecycle": desired.lifecycle.model_dump(mode="json"),
        }
    return _recorded_input(subject)


def _recorded_input(subject: Subject) -> dict[str, Any]:
    recorded, observed = subject.recorded, subject.observed
    managed = dict(recorded.managed) if recorded is not None else {}
    source = managed.get("source") or (str(observed.source) if observed is not None else None)
    return {
        "name": managed.get("name") or (observed.name if observed else subject.address),
        "address": subject.address,
        "source": source,
        "source_config": managed.get("source_config") or {},
        "source_revision_config": managed.get("source_revision_config") or {},
        "secret_names": sorted(recorded.secret_digests) if recorded is not None else [],
        "secret_env": {},
        "secret_references": managed.get("secret_references") or [],
        "lifecycle": {
            "protect": bool(recorded and recorded.protect),
            "ignore_changes": [],
            "create_before_destroy": False,
        },
    }


def _references(references: Sequence[Any] | None) -> list[Any]:
    return [r.model_dump(mode="json") for r in references or ()]


def change_input(change: Change | None) -> dict[str, Any]:
    """What the plan does to it (secret values are masked in a plan already)."""
    if change is None:
        return {"action": Action.NO_OP.value, "fields": []}
    fields = [
        {"path": f.path, "class": f.change_class.value, "before": f.before, "after": f.after}
        for f in change.fields
    ]
    return {"action": change.action.value, "fields": fields}


def live_input(observed: Deployment) -> dict[str, Any]:
    """The observed deployment without its secrets' values (their names only), unset
    (null) fields left out as in `deployment` (`has(live.x)` tells)."""
    live = observed.model_dump(mode="json", exclude={"secrets"}, exclude_none=True)
    live["secret_names"] = sorted(secret.name for secret in observed.secrets)
    return live


def plan_subjects(
    plan: Plan,
    desired: Mapping[str, DesiredDeployment],
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Deployment | None],
) -> Iterable[Subject]:
    """Every deployment of PLAN (unchanged ones included)."""
    for change in plan.changes:
        was = change.moved_from or change.name
        yield Subject(
            address=change.name,
            change=change,
            desired=desired.get(change.name) if change.action is not Action.DELETE else None,
            recorded=recorded.get(was),
            observed=observed.get(was),
        )


def with_policies(plan: Plan, results: list[PolicyResult]) -> Plan:
    """PLAN with its policy results: each deny is also an error of the plan."""
    if not results:
        return plan
    denials = [denial_problem(r) for r in results if r.severity == DENY]
    errors = sorted([*plan.errors, *denials], key=lambda e: (e.name, e.path or "", e.message))
    return plan.model_copy(update={"policies": results, "errors": errors})


def denial_problem(result: PolicyResult) -> PlanProblem:
    """A deny as a plan error: the policy, the deployment (its `name`) and the message."""
    if result.error is not None:
        message = (
            f"policy {result.policy} could not be evaluated, which counts as a deny "
            f"({result.error}): {result.message}"
        )
    else:
        message = f"denied by policy {result.policy}: {result.message}"
    hint = f"change the deployment, or the policy [policies.{result.policy}] of the config"
    return PlanProblem(name=result.deployment, message=message, hint=hint)


def check_plan_policies(
    plan: Plan,
    compiled: Sequence[CompiledPolicy],
    *,
    desired: Mapping[str, DesiredDeployment],
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Deployment | None],
    environment: str | None,
) -> Plan:
    """PLAN with the results of COMPILED for each of its deployments (a refresh-only
    plan changes no deployment: it is not checked)."""
    if not compiled or plan.mode == "refresh-only":
        return plan
    subjects = plan_subjects(plan, desired, recorded, observed)
    return with_policies(plan, evaluate(compiled, subjects, environment))


def check_desired(
    compiled: Sequence[CompiledPolicy],
    desired: Mapping[str, DesiredDeployment],
    environment: str | None,
) -> list[PolicyResult]:
    """`planner policy test`: COMPILED against the config alone, no state, no network:
    each deployment as if it were created (`change.action` "create", `live` null)."""
    subjects = (
        Subject(name, build_create(desired[name], b"", []), desired[name], None, None)
        for name in sorted(desired)
    )
    return evaluate(compiled, subjects, environment)
