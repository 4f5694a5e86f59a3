"""What the property of tests/cli/apply/test_apply_matches_plan.py knows and checks, apart from
its rules: the config as `Spec`s, the actions each step expects in each environment, and
`converge`, the promise itself (plan shows what the step expects, apply executes exactly
that, the next plan is empty but for failing rollouts)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from typing import Any

import pytest

from planner.cli.endpoint import EMBEDDED_DB_NAME
from tests.cli.apply.promise import (
    ENVIRONMENTS,
    SILENT_ACTIONS,
    Spec,
    event_moves,
    executed,
    moves,
    planned,
    settle,
    state_of,
    touched,
    write_config,
)
from tests.cli.apply.test_apply_killed import KILLED_AFTER
from tests.cli.conftest import Result, Scenario
from tests.event_lines import event_lines

# What the next plan calls an operation an apply killed after KILLED_AFTER's call did.
RECOVERED_AS = {
    "create_deployment": "create",
    "patch_deployment": "update",
    "delete_deployments": "delete",
}


class PromiseWorld:
    """The config, its secrets and what the current step expects (cooperates with
    RuleBasedStateMachine: `super().__init__()` is the machine's)."""

    def __init__(self, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self.scenario = scenario
        self.monkeypatch = monkeypatch
        self.specs: list[Spec] = []
        self.environments = False
        self.saved_plans = False  # apply the plan saved by `plan --out`, not a new one
        self.numbers = itertools.count()
        self.secrets: dict[str, str] = {}  # environment variable -> secret value
        self.expected: dict[str | None, dict[str, str]] = {}  # env -> address -> action
        self.recovered: dict[str | None, list[tuple[str, str]]] = {}
        self.moved: dict[tuple[str | None, str], tuple[str, str]] = {}  # (env, new): (old, id)
        monkeypatch.chdir(scenario.root)
        monkeypatch.setenv("PLANNER_STATE_DIR", str(scenario.root / "state"))

    @property
    def envs(self) -> list[str | None]:
        return list(ENVIRONMENTS) if self.environments else [None]

    def expect(self, address: str, action: str, env: str | None = "all") -> None:
        """ADDRESS's change in ENV ("all": every environment) is ACTION, after what this
        step made it already: a create stays one, a new revision takes in-place edits."""
        for each in self.envs if env == "all" else [env]:
            before = self.expected.setdefault(each, {}).get(address)
            if before != "create" and not (before == "new_revision" and action == "update"):
                self.expected[each][address] = action

    def pick(self, index: int, *, git: bool = False, working: bool = False) -> Spec:
        """The INDEXth deployment (modulo) of those from git / with a working rollout."""
        specs = [s for s in self.specs if (not git or s.source == "git_host")]
        specs = [s for s in specs if not (working and s.failing)]
        return specs[index % len(specs)]

    def has(self, *, git: bool = False, working: bool = False) -> bool:
        return any(
            (not git or s.source == "git_host") and not (working and s.failing) for s in self.specs
        )

    def new_secret(self, variable: str) -> None:
        self.secrets[variable] = f"sk-prop-{next(self.numbers)}-do-not-print"
        self.monkeypatch.setenv(variable, self.secrets[variable])

    def rollout_mark(self, mark: str, spec: Spec | None = None) -> str:
        """MARK, unless another deployment's rollout fails already: one at a time, as
        each failing one costs every apply the poller's first status check (~1 s)."""
        return "" if any(s.failing and s is not spec for s in self.specs) else mark

    def add_spec(self, source: str, mark: str) -> Spec:
        number = next(self.numbers)
        mark = self.rollout_mark(mark)
        spec = Spec(f"d{number}", f"d{number}", source, f"PROP_SECRET_{number}", mark=mark)
        self.new_secret(spec.secret_variable)
        self.specs.append(spec)
        self.expect(spec.address, "create")
        return spec

    def save(self) -> None:
        write_config(self.scenario, self.specs, self.environments)

    def has_failing(self) -> bool:
        return any(s.failing for s in self.specs)

    def converge(self, replace: str | None = None) -> None:
        """In each environment: the plan shows what this step expects, apply executes
        exactly that; then every next plan is empty but for failing rollouts."""
        extra = ("--replace", replace) if replace else ()
        saved = str(self.scenario.root / "step.plan.json")
        for env in self.envs:
            settle(self.scenario)
            out = ("--out", saved) if self.saved_plans else ()
            plan = self.plan_as_expected(env, self.expected_actions(env), (*extra, *out))
            self.apply_as_planned(env, plan, (saved,) if self.saved_plans else extra)
        self.expected, self.recovered, self.moved = {}, {}, {}
        settle(self.scenario)
        for env in self.envs:
            after = self.plan_as_expected(env, self.expected_actions(env), ("--detailed-exitcode",))
            assert after["drift"] == [] and not after.get("recovered"), after
        self.assert_no_secret_in_files()

    def expected_actions(self, env: str | None) -> dict[str, str]:
        """This step's actions in ENV, and a new revision for every failing rollout."""
        actions = dict(self.expected.get(env, {}))
        for spec in self.specs:
            if spec.failing and actions.get(spec.address, "update") == "update":
                actions[spec.address] = "new_revision"
        return actions

    def plan_as_expected(
        self, env: str | None, actions: dict[str, str], extra: tuple[str, ...]
    ) -> dict[str, Any]:
        result = self.cli("plan", env, "--format", "json", *extra)
        sends = {(a, act) for a, act in actions.items() if act not in SILENT_ACTIONS}
        wanted_code = 2 if "--detailed-exitcode" in extra and sends else 0
        assert result.code == wanted_code, result.out + result.err
        plan: dict[str, Any] = json.loads(result.out)
        assert plan["errors"] == []
        assert planned(plan) == sends, plan["changes"]
        moved = {new: old for (at, new), (old, _) in self.moved.items() if at == env}
        assert moves(plan) == moved
        if env in self.recovered:
            found = [(r["name"], r["operation"]) for r in plan["recovered"]]
            assert found == self.recovered[env], plan["recovered"]
        return plan

    def apply_as_planned(
        self, env: str | None, plan: dict[str, Any], extra: tuple[str, ...]
    ) -> None:
        approve = () if self.saved_plans else ("--auto-approve",)
        result = self.cli("apply", env, *approve, "--format", "json", *extra)
        events = event_lines(result.out)
        assert executed(events) == planned(plan), result.out
        assert touched(events) <= planned(plan), result.out
        assert event_moves(events) == moves(plan), result.out
        failing = {s.address for s in self.specs if s.failing}
        wanted_code = 1 if {name for name, _ in planned(plan)} & failing else 0
        assert result.code == wanted_code, result.out + result.err
        for (at, new), (_, deployment_id) in self.moved.items():
            if at == env:
                assert state_of(self.scenario, env).deployments[new].id == deployment_id

    def refused(self, env: str | None, address: str, path: str) -> None:
        """An immutable change: plan is an error naming the field and `--replace`; apply
        refuses it with an error event and sends nothing."""
        settle(self.scenario)
        result = self.cli("plan", env, "--format", "json")
        assert result.code == 1, result.out + result.err
        errors = json.loads(result.out)["errors"]
        assert [(e["name"], e["path"]) for e in errors] == [(address, path)], errors
        assert "--replace" in (errors[0]["hint"] or "") + errors[0]["message"]
        applied = self.cli("apply", env, "--auto-approve", "--format", "json")
        events = event_lines(applied.out)
        assert applied.code == 1 and executed(events) == set(), applied.out
        assert events[-1]["type"] == "error", applied.out

    def apply_killed(self, killed_after: str, env: str | None) -> None:
        """`planner apply`, killed with SIGKILL once the server answered KILLED_AFTER."""
        # a short lease: the next apply waits out the killed one's lease before it starts
        argv = ["apply", *self.target(env), "--auto-approve", "--lock-lease", "1"]
        done = subprocess.run(
            [sys.executable, "-c", KILLED_AFTER, killed_after, *argv],
            cwd=self.scenario.root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == -9, done.stdout + done.stderr
        self.assert_no_secret(done.stdout + done.stderr)

    def cli(self, command: str, env: str | None, *argv: str) -> Result:
        result = self.scenario.cli(command, *self.target(env), *argv)
        self.assert_no_secret(result.out + result.err)
        return result

    def target(self, env: str | None) -> list[str]:
        return ["-c", str(self.scenario.config_path)] + (["--env", env] if env else [])

    def assert_no_secret_in_files(self) -> None:
        """States, their journals and backups, and saved plans hold digests, never values
        (the server's database holds them: it is the control plane)."""
        for path in self.scenario.root.rglob("*"):
            if path.is_file() and not path.name.startswith(EMBEDDED_DB_NAME):
                self.assert_no_secret(path.read_text(encoding="utf-8", errors="replace"))

    def assert_no_secret(self, output: str) -> None:
        leaked = [variable for variable, value in self.secrets.items() if value in output]
        assert leaked == [], f"secret values of {leaked} printed"
