"""The promise of PRODUCT.md "One target, one truth" as a property: after any sequence of
config edits (add, change a field of each class, remove, rename, two environments), hand
edits on the server, failed rollouts and interrupted applies, `apply` executes exactly
the changes `plan` shows (compared through its NDJSON events: same deployments, same
actions, nothing more) and the next plan is empty (but for the failed rollouts the
config still asks for). The world and the checks: tests/cli/apply/promise_world.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from tests.cli.apply.promise import MOVES_PLANNED, Spec, state_of
from tests.cli.apply.promise_world import RECOVERED_AS, PromiseWorld
from tests.cli.conftest import FAST_TIMINGS, Scenario
from tests.strategies import (
    hand_edited_fields,
    indexes,
    kill_points,
    machine_sources,
    new_revision_fields,
    rollout_marks,
    several_edits,
)

# slow: an interrupted apply is a process killed with SIGKILL. The timeout: each run
# waits on tens of simulated rollouts, so its wall time follows the machine's load (a
# loaded 2-core CI box has taken 90 s for what takes 30 s alone).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

# Bounded (well under a minute on one core) and the same sequences on every run. No
# shrinking: a failing run's steps are printed as they ran, and shrinking a sequence that
# starts processes would outlast the test timeout.
PROMISE = settings(
    max_examples=4,
    stateful_step_count=8,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)


class PlanApplyMachine(PromiseWorld, RuleBasedStateMachine):
    """Every rule changes the world (config, server, a killed apply), says what it
    expects the plan to show, then `converge` checks the promise in each environment."""

    @initialize(environments=st.booleans(), saved_plans=st.booleans())
    def start(self, environments: bool, saved_plans: bool) -> None:
        """One deployment of each source: every field class has a field from the start."""
        self.environments, self.saved_plans = environments, saved_plans
        self.add_spec("git_host", "")
        self.add_spec("internal_docker", "")
        self.save()
        self.converge()

    @precondition(lambda self: len(self.specs) < 4)
    @rule(source=machine_sources, mark=rollout_marks)
    def add(self, source: str, mark: str) -> None:
        self.add_spec(source, mark)
        self.save()
        self.converge()

    @precondition(lambda self: self.has(git=True))
    @rule(index=indexes)
    def change_in_place(self, index: int) -> None:
        self.edit_in_place(index)
        self.save()
        self.converge()

    @rule(index=indexes, field=new_revision_fields, mark=rollout_marks)
    def change_new_revision(self, index: int, field: str, mark: str) -> None:
        self.edit_new_revision(index, field, mark)
        self.save()
        self.converge()

    @rule(edits=several_edits)
    def change_several(self, edits: list[tuple[str, int, str, str]]) -> None:
        """Edits of several kinds, deployments or classes, then one plan and one apply
        (one deployment's in-place and new-revision edits go in one PATCH)."""
        for kind, index, field, mark in edits:
            if kind == "in_place" and self.has(git=True):
                self.edit_in_place(index)
            elif kind == "one_environment" and self.environments:
                self.edit_one_environment(index)
            elif kind == "add" and len(self.specs) < 4:
                self.add_spec(("git_host", "internal_docker")[index % 2], mark)
            else:
                self.edit_new_revision(index, field, mark)
        self.save()
        self.converge()

    def edit_in_place(self, index: int) -> None:
        spec = self.pick(index, git=True)
        spec.build_on_push = not spec.build_on_push
        self.expect(spec.address, "update")

    def edit_new_revision(self, index: int, field: str, mark: str) -> None:
        spec = self.pick(index)
        if field == "max_scale":
            spec.max_scale += 1
        elif field == "secret":
            self.new_secret(spec.secret_variable)
        else:
            spec.artifact, spec.mark = spec.artifact + 1, self.rollout_mark(mark, spec)
        self.expect(spec.address, "new_revision")

    def edit_one_environment(self, index: int) -> None:
        spec = self.pick(index)
        spec.prod_scale = (spec.prod_scale or spec.max_scale) + 5
        self.expect(spec.address, "new_revision", "prod")

    @precondition(lambda self: self.has(git=True))
    @rule(index=indexes)
    def change_immutable(self, index: int) -> None:
        spec = self.pick(index, git=True)
        spec.repo += 1
        self.save()
        for env in self.envs:
            self.refused(env, spec.address, "source_config.repo_url")
        self.expect(spec.address, "replace")
        self.converge(replace=spec.address)

    @precondition(lambda self: self.environments)
    @rule(index=indexes)
    def change_one_environment(self, index: int) -> None:
        self.edit_one_environment(index)
        self.save()
        self.converge()

    @precondition(lambda self: len(self.specs) >= 2)
    @rule(index=indexes)
    def remove(self, index: int) -> None:
        spec = self.pick(index)
        self.specs.remove(spec)
        self.expect(spec.address, "delete")
        self.save()
        self.converge()

    @rule(index=indexes, keep_name=st.booleans() if MOVES_PLANNED else st.just(False))
    def rename(self, index: int, keep_name: bool) -> None:
        spec = self.pick(index, working=keep_name)
        old, spec.address = spec.address, f"d{next(self.numbers)}"
        if keep_name:
            for env in self.envs:
                recorded = state_of(self.scenario, env).deployments[old]
                self.moved[env, spec.address] = (old, recorded.id)
            self.expect(spec.address, "moved")
        else:
            spec.remote = spec.address
            self.expect(old, "delete")
            self.expect(spec.address, "create")
        self.save()
        self.converge()

    @precondition(lambda self: self.has(working=True))
    @rule(index=indexes, field=hand_edited_fields, mark=rollout_marks)
    def hand_edit(self, index: int, field: str, mark: str) -> None:
        """A change on the server (in the last environment): drift the plan sets back."""
        spec = self.pick(index, working=True)
        env = self.envs[-1]
        deployment_id = state_of(self.scenario, env).deployments[spec.address].id
        if field == "deleted":
            self.scenario.delete(deployment_id)
            self.expect(spec.address, "create", env)
        else:
            body, action = hand_patch(spec, field, mark)
            self.scenario.patch(deployment_id, body)
            self.expect(spec.address, action, env)
        self.converge()

    @precondition(lambda self: self.specs and not self.has_failing())
    @rule(index=indexes, kill=kill_points, source=machine_sources, mark=rollout_marks)
    def interrupted_apply(self, index: int, kill: str, source: str, mark: str) -> None:
        if kill == "delete_deployments" and len(self.specs) < 2:
            kill = "create_deployment"
        if kill == "create_deployment":
            spec = self.add_spec(source, mark)
        else:
            spec = self.pick(index)
            if kill == "patch_deployment":
                spec.artifact, spec.mark = spec.artifact + 1, mark
                self.expect(spec.address, "new_revision")
            else:
                self.specs.remove(spec)
                self.expect(spec.address, "delete")
        self.save()
        env = self.envs[0]
        self.apply_killed(kill, env)
        self.expected[env] = {}
        self.recovered[env] = [(spec.address, RECOVERED_AS[kill])]
        self.converge()


def hand_patch(spec: Spec, field: str, mark: str) -> tuple[dict[str, Any], str]:
    """The PATCH body of a hand edit of FIELD of SPEC's deployment, and the action that
    sets it back (build_on_push of a deployment without one edits max_scale)."""
    if field == "build_on_push" and spec.source == "git_host":
        return {"source_config": {"build_on_push": not spec.build_on_push}}, "update"
    if field == "artifact":
        edited = Spec(**{**vars(spec), "artifact": spec.artifact + 100, "mark": mark})
        revision = edited.table(False)["source_revision_config"]
        return {"source_revision_config": revision}, "new_revision"
    scale = spec.max_scale + 100
    return {"source_config": {"resource_spec": {"max_scale": scale}}}, "new_revision"


@pytest.fixture
def new_machine(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[], PlanApplyMachine]:
    """Makes machines, each in a fresh working dir with its own embedded control plane."""
    for variable in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID", "PLANNER_ENV"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in FAST_TIMINGS.items():
        monkeypatch.setenv(variable, value)

    def machine() -> PlanApplyMachine:
        root = tmp_path_factory.mktemp("promise")
        return PlanApplyMachine(Scenario(root, capsys, root / "planner.json"), monkeypatch)

    return machine


def test_apply_executes_exactly_what_plan_shows(
    new_machine: Callable[[], PlanApplyMachine],
) -> None:
    """Random sequences of edits, drift, failures and kills: apply sends exactly the
    plan's changes and the next plan is empty, in every environment."""
    # Hypothesis annotates a class but takes any factory called with no arguments.
    run_state_machine_as_test(new_machine, settings=PROMISE)  # type: ignore[arg-type]


def test_every_kind_of_step_keeps_the_promise(new_machine: Callable[[], PlanApplyMachine]) -> None:
    """One fixed tour through every rule in two environments (a random run may miss one)."""
    machine = new_machine()
    machine.start(environments=True, saved_plans=False)
    machine.add(source="internal_docker", mark="fail-build")
    machine.change_in_place(index=0)
    machine.change_new_revision(index=2, field="artifact", mark="")
    machine.change_new_revision(index=0, field="secret", mark="")
    machine.change_new_revision(index=1, field="max_scale", mark="")
    machine.change_several([("in_place", 0, "", ""), ("new_revision", 0, "max_scale", "")])
    machine.change_immutable(index=0)
    machine.change_one_environment(index=1)
    for field in ("build_on_push", "max_scale", "artifact", "deleted"):
        machine.hand_edit(index=0, field=field, mark="fail-deploy")
    machine.rename(index=1, keep_name=False)
    if MOVES_PLANNED:
        machine.rename(index=1, keep_name=True)
    machine.remove(index=2)
    for kill in ("create_deployment", "patch_deployment", "delete_deployments"):
        machine.interrupted_apply(index=0, kill=kill, source="git_host", mark="")
    machine.interrupted_apply(
        index=0, kill="create_deployment", source="internal_docker", mark="fail-deploy"
    )
    machine.teardown()
