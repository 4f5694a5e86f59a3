"""Benchmark policies (CEL) on a large plan, and compare the CEL libraries (not a test).

    python benchmarks/bench_policies.py [--count 10000] [--runs 5]
    python benchmarks/bench_policies.py --compare [--count 10000]

Default: the planner's own path (`planner.plan.policies`): compile 5 policies once, then
`check_plan_policies` on a plan of COUNT deployments (every one a no_op with its desired
config, its state record and its live deployment; the policies read `deployment`,
`change`, `live` and `environment`). Prints the best of RUNS: compile, evaluation
(inputs built + CEL), per deployment. Target: under 1 s for 5 policies x 10,000.

`--compare`: each candidate library importable in this interpreter (install them in a
scratch venv: `pip install cel-python common-expression-language cel-expr-python`)
compiles the same 5 rules once and evaluates them over COUNT plain-dict deployments;
then 20 probes of the CEL spec (int overflow, division by zero, heterogeneous equality,
code-point string size, macros, short-circuit errors, timestamps, ...).

Measured 2026-11-25 on this project's machine (x86_64, Python 3.11.7, 2 cores shared
with ~7 other jobs, load average ~7): CPU time of the process (wall time under that load
is up to 2x more), 5 rules x 10,000 deployments, compile once; each library in its own
scratch venv (`<venv>/bin/python benchmarks/bench_policies.py --compare`):

| library (release), wheel on x86_64 py3.11 | compile 5 | evaluate 50,000 | spec probes |
|---|---|---|---|
| cel-python 0.5.0 (2026-01), pure Python, + lark | 7.1 ms | 16,964 ms | 18/20 |
| common-expression-language 0.10.0 (2026-09), Rust, + typer | 1.5 ms | 1,694 ms | 19/20 |
| cel-expr-python 0.1.3 (2026-06), cel-cpp, no deps | 1.7 ms | 369 ms | 19/20 |

(cel-bind 0.8.4 also installs, but is a thin binding without a maintained project page.)
Misses: cel-python rejects `1 == 1.0` and `dyn(1u) == 1` at evaluation (heterogeneous
equality); common-expression-language counts bytes in `size('héllo')` (6, the spec says
5 code points); cel-expr-python's type checker rejects `1 == 1.0` at compile time, as
cel-go's checker does (`dyn(1) == 1.0` is true). cel-expr-python is the chosen one: the
fastest (4.6x the Rust binding, 46x pure Python), type-checked at compile time (an
unknown input is a `validate` error), maintained by the CEL project itself
(github.com/cel-expr/cel-python), no dependencies.

The planner's path with it (`python benchmarks/bench_policies.py`, same machine, best of
3): compile 5 policies 1.4 ms; evaluate on a 10,000-deployment plan 462 ms CPU (714 ms
wall under the load), 46 us per deployment, inputs built included: under the 1 s target.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RULES = [
    "environment != 'prod' || deployment.lifecycle.protect",
    "!has(deployment.source_config.resource_spec) || "
    "!has(deployment.source_config.resource_spec.max_scale) || "
    "deployment.source_config.resource_spec.max_scale <= 10",
    "!(change.action in ['delete', 'replace']) || !deployment.lifecycle.protect",
    "!has(deployment.source_revision_config.image_uri) || "
    "deployment.source_revision_config.image_uri.startsWith('registry.example.com/')",
    "live == null || live.status == 'READY'",
]


def planner_inputs(count: int) -> tuple[Any, ...]:
    from planner.api.models import Deployment
    from planner.config.desired import DesiredDeployment
    from planner.plan.model import Action, Change, Plan
    from planner.state.records import RecordedDeployment

    now = datetime(2026, 1, 1, tzinfo=UTC)
    desired, recorded, observed, changes = {}, {}, {}, []
    for i in range(count):
        name = f"agent-{i:05d}"
        spec = {"source_config": {"resource_spec": {"min_scale": 1, "max_scale": 1 + i % 10}}}
        image = {"image_uri": f"registry.example.com/acme/{name}:1.0.0"}
        desired[name] = DesiredDeployment.model_validate(
            {
                "name": name,
                "source": "internal_docker",
                **spec,
                "source_revision_config": image,
                "secret_env": {"TOKEN": "TOKEN"},
                "lifecycle": {"protect": True},
            }
        )
        recorded[name] = RecordedDeployment(name=name, id=f"id-{i}", protect=True)
        observed[name] = Deployment.model_validate(
            {
                "id": f"id-{i}",
                "tenant_id": "t",
                "name": name,
                "source": "internal_docker",
                **spec,
                "source_revision_config": image,
                "created_at": now,
                "updated_at": now,
                "status": "READY",
            }
        )
        changes.append(Change(name=name, action=Action.NO_OP, deployment_id=f"id-{i}"))
    return Plan(changes=changes), desired, recorded, observed


def bench_planner(count: int, runs: int) -> None:
    from planner.config.models import Policy
    from planner.plan.policies import check_plan_policies, compile_policies

    plan, desired, recorded, observed = planner_inputs(count)
    policies = [Policy(f"rule-{i}", rule, "m") for i, rule in enumerate(RULES)]
    compile_times, eval_times, cpu_times = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        compiled = compile_policies(policies, "bench")
        compiled_at, cpu_at = time.perf_counter(), time.process_time()
        checked = check_plan_policies(
            plan,
            compiled,
            desired=desired,
            recorded=recorded,
            observed=observed,
            environment="prod",
        )
        done, cpu_done = time.perf_counter(), time.process_time()
        compile_times.append(compiled_at - start)
        eval_times.append(done - compiled_at)
        cpu_times.append(cpu_done - cpu_at)
    assert not checked.policies, checked.policies[:3]  # every deployment passes
    best, cpu = min(eval_times), min(cpu_times)
    print(f"planner path: {len(RULES)} policies x {count} deployments (best of {runs})")
    print(f"  compile  {1000 * min(compile_times):8.1f} ms")
    print(f"  evaluate {1000 * best:8.1f} ms wall, {1000 * cpu:.1f} ms CPU of this process")
    print(f"           ({1e6 * cpu / count:.1f} us CPU per deployment)")
    print(f"  target   {'met' if cpu < 1.0 else 'MISSED'} (under 1 s; CPU time, the machine")
    print("           may be shared: wall time counts the other jobs' turns too)")


def plain_inputs(count: int) -> list[dict[str, Any]]:
    return [
        {
            "deployment": {
                "name": f"agent-{i}",
                "address": f"agent-{i}",
                "source": "internal_docker",
                "source_config": {"resource_spec": {"min_scale": 1, "max_scale": 1 + i % 10}},
                "source_revision_config": {"image_uri": f"registry.example.com/acme/a{i}:1"},
                "secret_names": ["TOKEN"],
                "lifecycle": {"protect": True, "ignore_changes": []},
            },
            "change": {"action": "no_op", "fields": []},
            "live": {"status": "READY"},
            "environment": "prod",
        }
        for i in range(count)
    ]


def runner_cel_python() -> Callable[[str], Callable[[dict[str, Any]], Any]]:
    import celpy  # type: ignore[import-not-found]

    env = celpy.Environment()

    def compile_one(rule: str) -> Callable[[dict[str, Any]], Any]:
        program = env.program(env.compile(rule))

        def run(data: dict[str, Any]) -> Any:
            result = program.evaluate({k: celpy.json_to_cel(v) for k, v in data.items()})
            if isinstance(result, celpy.CELEvalError):
                raise RuntimeError(result)
            return result

        return run

    return compile_one


def runner_common_expression_language() -> Callable[[str], Callable[[dict[str, Any]], Any]]:
    import cel  # type: ignore[import-not-found]

    return lambda rule: cel.compile(rule).execute


def runner_cel_expr_python() -> Callable[[str], Callable[[dict[str, Any]], Any]]:
    from cel_expr_python import cel

    env = cel.NewEnv(
        variables=dict.fromkeys(["deployment", "change", "live", "environment"], cel.Type.DYN)
    )

    def compile_one(rule: str) -> Callable[[dict[str, Any]], Any]:
        program = env.compile(rule)

        def run(data: dict[str, Any]) -> Any:
            value = program.eval(data=data)
            if value.type() == cel.Type.ERROR:
                raise RuntimeError(value.value())
            return value.plain_value()

        return run

    return compile_one


CANDIDATES = {
    "cel-python": runner_cel_python,
    "common-expression-language": runner_common_expression_language,
    "cel-expr-python": runner_cel_expr_python,
}
PROBES: list[tuple[str, Any]] = [  # (expression, what the CEL spec says; "ERR": an error)
    ("1 / 0", "ERR"),
    ("9223372036854775807 + 1", "ERR"),
    ("1 == 1.0", True),
    ("size('héllo')", 5),
    ("[1, 2, 3].exists(x, x > 2)", True),
    ("'abc'.matches('^a.c$')", True),
    ("{'a': 1}.a", 1),
    ("has({'a': 1}.b)", False),
    ("{'a': 1}.b", "ERR"),
    ("'x' in ['x']", True),
    ("[1, 2].map(x, x * 2)", [2, 4]),
    ("false && (1 / 0 == 1)", False),
    ("(1 / 0 == 1) || true", True),
    ("'a' + 1", "ERR"),
    ("timestamp('2024-01-01T00:00:00Z') < timestamp('2025-01-01T00:00:00Z')", True),
    ("int('12')", 12),
    ("dyn(1u) == 1", True),
    ("'abc'.startsWith('ab')", True),
    ("[1, 2].all(x, x > 0)", True),
    ("null == null", True),
]


def probe(compile_one: Callable[[str], Callable[[dict[str, Any]], Any]]) -> tuple[int, list[str]]:
    passed, misses = 0, []
    for expression, expected in PROBES:
        try:
            got: Any = compile_one(expression)({})
            got = bool(got) if isinstance(expected, bool) else got
        except Exception:  # any failure is the "error" outcome of a probe
            got = "ERR"
        is_error = isinstance(got, str) and got == "ERR"
        if is_error == (expected == "ERR") and (is_error or got == expected):
            passed += 1
        else:
            misses.append(f"{expression!r} gave {got!r}, the spec says {expected!r}")
    return passed, misses


def bench_compare(count: int) -> None:
    data = plain_inputs(count)
    for name, make in CANDIDATES.items():
        try:
            compile_one = make()
        except ImportError:
            print(f"{name}: not installed here (pip install {name})")
            continue
        start = time.process_time()
        programs = [compile_one(rule) for rule in RULES]
        compiled = time.process_time()
        passed = sum(bool(program(item)) for item in data for program in programs)
        done = time.process_time()
        score, misses = probe(compile_one)
        print(
            f"{name}: CPU time: compile {1000 * (compiled - start):.1f} ms, evaluate "
            f"{len(RULES)}x{count} {1000 * (done - compiled):.0f} ms ({passed} true), "
            f"spec probes {score}/{len(PROBES)}"
        )
        for miss in misses:
            print(f"    {miss}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare", action="store_true", help="compare the CEL libraries")
    args = parser.parse_args()
    if args.compare:
        bench_compare(args.count)
    else:
        bench_planner(args.count, args.runs)


if __name__ == "__main__":
    main()
