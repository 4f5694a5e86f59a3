"""`kill -9` of `planner apply` right after the server answered, before the state
recorded it: the next plan reports the planner's own operation as recovered from an
interrupted apply, never as changed outside the planner, and the next apply converges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Scenario

pytestmark = pytest.mark.slow

# Runs `planner ARGV...`; the first call of METHOD on the client completes on the server,
# then the process is killed with SIGKILL before it can record the answer.
KILLED_AFTER = """
import os, signal, sys
from planner.api.client import ControlPlaneClient
from planner.cli.main import main
method = sys.argv[1]
original = getattr(ControlPlaneClient, method)
async def answered_then_killed(self, *args, **kwargs):
    await original(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(ControlPlaneClient, method, answered_then_killed)
sys.exit(main(sys.argv[2:]))
"""


def apply_killed_after(scenario: Scenario, method: str, *args: str) -> None:
    """`planner apply --auto-approve ARGS...`, killed with SIGKILL once METHOD was answered."""
    # a short lease: the next apply waits out the killed one's lease before it starts
    argv = ["apply", "--auto-approve", "--lock-lease", "1", *args]
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER, method, *argv],
        cwd=scenario.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -9, done.stdout + done.stderr


def assert_recovered_not_drift(scenario: Scenario, name: str, operation: str) -> None:
    """The next plan names NAME's OPERATION as recovered, in JSON, and NAME with its id
    in text and markdown (`Recovered from an interrupted apply: NAME (ID)`); no drift."""
    plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == []
    assert [(r["name"], r["operation"]) for r in plan["recovered"]] == [(name, operation)]
    headline = (
        f"Recovered from an interrupted apply: {name} ({plan['recovered'][0]['deployment_id']})"
    )
    text = scenario.plan()
    assert text.code == 0, text.err
    assert headline in text.out.splitlines()
    assert "outside the planner" not in text.out, text.out
    markdown = scenario.plan("--format", "markdown").out
    assert headline in markdown
    assert "outside the planner" not in markdown


def assert_converges(scenario: Scenario) -> None:
    """The next apply succeeds, leaves no journal entry, and the plan after it is empty."""
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    state = scenario.state()
    assert state is not None and state.pending == []
    after = scenario.plan("--detailed-exitcode")
    assert after.code == 0, after.out
    assert "Recovered" not in after.out


def test_killed_after_a_patch_is_recovered_not_drift(scenario: Scenario) -> None:
    """A new revision the server made but the state never recorded is recovered."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("worker:1.0.0", "worker:1.0.1")
    apply_killed_after(scenario, "patch_deployment")
    assert_recovered_not_drift(scenario, "worker", "update")
    assert_converges(scenario)


def test_killed_after_a_delete_is_recovered_not_drift(scenario: Scenario) -> None:
    """A delete the server did but the state never recorded is recovered, not reported
    as "deleted outside the planner"."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(text.split("[deployments.worker]")[0])
    apply_killed_after(scenario, "delete_deployments")
    assert_recovered_not_drift(scenario, "worker", "delete")
    assert_converges(scenario)


def test_killed_after_a_create_is_recovered(scenario: Scenario) -> None:
    """A create the server did but the state never recorded is recovered (and adopted)."""
    scenario.write_config(scenario.config_path.read_text().split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    assert_recovered_not_drift(scenario, "api", "create")
    assert_converges(scenario)


def test_a_saved_plan_that_adopts_a_create_says_so_when_applied(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan saved after a kill -9 between a create and its record carries the create
    in `recovered` and the revision it started in `rollouts`; its apply names the
    create in the result (text), waits for that revision and converges."""
    monkeypatch.setenv("PLANNER_EMBEDDED_BUILD_SECONDS", "3")
    scenario.write_config(scenario.config_path.read_text().split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    assert scenario.plan("--out", "p.json").code == 0
    saved = json.loads((scenario.root / "p.json").read_text())
    [recovered] = saved["recovered"]
    assert [r["name"] for r in saved["rollouts"]] == ["api"]
    result = scenario.cli("apply", "p.json")
    assert result.code == 0, result.out + result.err
    headline = f"Recovered from an interrupted apply: api ({recovered['deployment_id']})"
    assert headline in result.out.splitlines()
    assert "waited for 1 rollout" in result.out
    live = scenario.get(recovered["deployment_id"])
    assert live.active_revision_id == live.latest_revision_id
    after = scenario.plan("--detailed-exitcode")
    assert after.code == 0, after.out


def test_the_apply_after_a_kill_waits_for_the_rollout_it_started(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a kill -9 right after a create, the next apply (nothing else to change)
    waits for the revision that create started before it reports success: its events
    end the deployment DEPLOYED, and the server has it active when the apply returns."""
    monkeypatch.setenv("PLANNER_EMBEDDED_BUILD_SECONDS", "3")
    scenario.write_config(scenario.config_path.read_text().split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    result = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert result.code == 0, result.out + result.err
    events = [json.loads(line) for line in result.out.splitlines()]
    assert events[0]["rollouts"] == 1
    [end] = [e for e in events if e["type"] == "operation"]
    assert (end["deployment"], end["action"], end["status"]) == ("api", "no_op", "DEPLOYED")
    state = scenario.state()
    assert state is not None
    live = scenario.get(state.deployments["api"].id)
    assert live.active_revision_id == live.latest_revision_id == end["revision_id"]


def test_an_apply_that_adopts_a_create_lists_it_in_every_format(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """After a kill -9 between a create and its record, the next apply names what it
    adopts: in the plan it shows and its result (text), in its step summary (markdown)
    and in its summary event (JSON `recovered[]`)."""
    scenario.write_config(scenario.config_path.read_text().split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    [recovered] = json.loads(scenario.plan("--format", "json").out)["recovered"]
    headline = f"Recovered from an interrupted apply: api ({recovered['deployment_id']})"
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert result.out.splitlines().count(headline) == 2  # the plan shown, the result
    assert "api: created but never recorded; this apply records it" in result.out
    assert headline in summary.read_text(encoding="utf-8")


def test_the_json_summary_of_an_adopting_apply_carries_recovered(scenario: Scenario) -> None:
    """`apply --format json` after a kill -9 between a create and its record: the
    summary event lists the adopted create in `recovered`."""
    scenario.write_config(scenario.config_path.read_text().split("[deployments.worker]")[0])
    apply_killed_after(scenario, "create_deployment")
    result = scenario.cli("apply", "--auto-approve", "--format", "json")
    assert result.code == 0, result.out + result.err
    summary = json.loads(result.out.splitlines()[-1])
    assert [(r["name"], r["operation"]) for r in summary["recovered"]] == [("api", "create")]
