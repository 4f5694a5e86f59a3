"""A create recovered from an interrupted apply (kill -9 after the server answered) is
planned as apply will treat it: found by the property of
tests/cli/apply/test_apply_matches_plan.py, where plan said "No changes" and apply, which
records the recovered create first, then sent something."""

from __future__ import annotations

import json

import pytest

from tests.cli.apply.promise import executed, planned, settle
from tests.cli.apply.test_apply_killed import apply_killed_after
from tests.cli.conftest import Scenario
from tests.event_lines import event_lines

pytestmark = pytest.mark.slow  # the interrupted apply is a process killed with SIGKILL

FAILING_WORKER = """
[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker-fail-deploy:1"
"""


def test_a_recovered_create_whose_rollout_failed_is_planned_as_apply_sends_it(
    scenario: Scenario,
) -> None:
    """kill -9 after a create whose revision then fails: the plan shows the recovered
    create and the failed rollout submitted again (exit 2), which is what apply sends."""
    scenario.write_config(FAILING_WORKER)
    apply_killed_after(scenario, "create_deployment")
    settle(scenario)
    result = scenario.plan("--format", "json", "--detailed-exitcode")
    assert result.code == 2, result.out + result.err
    plan = json.loads(result.out)
    assert [(r["name"], r["operation"]) for r in plan["recovered"]] == [("worker", "create")]
    assert planned(plan) == {("worker", "new_revision")}
    assert "DEPLOY_FAILED" in plan["changes"][0]["reason"]
    applied = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert executed(event_lines(applied.out)) == {("worker", "new_revision")}


def test_a_recovered_create_the_config_dropped_is_planned_for_deletion(
    scenario: Scenario,
) -> None:
    """kill -9 after a create, then the deployment leaves the config (another one takes
    its place): the plan shows the recovered create and its delete, which is what apply
    sends."""
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(text.split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    scenario.write_config(FAILING_WORKER.replace("-fail-deploy", ""))
    settle(scenario)
    plan = json.loads(scenario.plan("--format", "json").out)
    assert [(r["name"], r["operation"]) for r in plan["recovered"]] == [("api", "create")]
    assert planned(plan) == {("api", "delete"), ("worker", "create")}, plan["changes"]
    applied = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert executed(event_lines(applied.out)) == planned(plan)
