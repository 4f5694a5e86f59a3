"""`kill -9` of `planner rollback` and `planner release` at each point of their work: the
state never holds a hold the server does not match nor forgets a redeploy that happened,
and one more run converges."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import (
    GOOD,
    TwoReleases,
    image_of,
    recorded,
    release_twice,
    revisions,
    state_of,
)

pytestmark = pytest.mark.slow

# Runs `planner ARGV...` with OWNER.METHOD (a dotted class path) replaced: the process is
# killed with SIGKILL before the original is called ("before") or once it returned ("after").
KILLED = """
import importlib, os, signal, sys
from planner.cli.main import main
owner, method, when = sys.argv[1].rpartition(".")[0], sys.argv[1].rpartition(".")[2], sys.argv[2]
module, _, name = owner.rpartition(".")
cls = getattr(importlib.import_module(module), name)
original = getattr(cls, method)
async def killed(self, *args, **kwargs):
    if when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    result = await original(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(cls, method, killed)
sys.exit(main(sys.argv[3:]))
"""
CLIENT = "planner.api.client.ControlPlaneClient"


def killed_at(scenario: Scenario, method: str, when: str, *argv: str) -> None:
    """`planner ARGV...` (with a 1 s lease, so the next run need not wait long for the
    lock), killed with SIGKILL at METHOD, WHEN ("before" or "after" it ran)."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED, method, when, *argv, "--lock-lease", "1"],
        cwd=scenario.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -9, done.stdout + done.stderr


def assert_rolled_back_once(scenario: Scenario, two: TwoReleases) -> None:
    """One redeploy happened, it runs, and the state holds it with nothing journalled."""
    newest, *older = revisions(scenario, two.deployment_id)
    assert [r.id for r in older] == [two.bad, two.good] and image_of(newest) == GOOD
    doc = state_of(scenario)
    worker = doc.deployments["worker"]
    assert doc.pending == []
    assert worker.held is not None and worker.held.revision_id == two.good
    assert worker.latest_revision_id == worker.active_revision_id == newest.id
    assert scenario.get(two.deployment_id).active_revision_id == newest.id


def rollback_again(scenario: Scenario) -> str:
    result = scenario.cli("rollback", "worker", "--auto-approve")
    assert result.code == 0, result.out + result.err
    return result.out


def test_killed_before_the_redeploy_is_sent(scenario: Scenario) -> None:
    """Journalled, never sent: no hold is recorded; the next rollback drops the entry and
    redeploys once."""
    two = release_twice(scenario)
    killed_at(scenario, f"{CLIENT}.redeploy", "before", "rollback", "worker", "--auto-approve")
    assert recorded(scenario).held is None
    assert [i.op for i in state_of(scenario).pending] == ["redeploy"]
    assert len(revisions(scenario, two.deployment_id)) == 2
    out = rollback_again(scenario)
    assert "Recovered" not in out
    assert_rolled_back_once(scenario, two)


def test_killed_after_the_redeploy_was_answered(scenario: Scenario) -> None:
    """Sent and answered, never recorded: the next plan lists it as recovered (not as
    drift) and the next rollback records its hold, waits for it, and sends nothing."""
    two = release_twice(scenario)
    killed_at(scenario, f"{CLIENT}.redeploy", "after", "rollback", "worker", "--auto-approve")
    assert recorded(scenario).held is None
    plan = json.loads(scenario.plan("--format", "json").out)
    assert [(r["name"], r["operation"]) for r in plan["recovered"]] == [("worker", "redeploy")]
    assert plan["drift"] == []
    assert [i.op for i in state_of(scenario).pending] == ["redeploy"]  # a plan writes nothing
    out = rollback_again(scenario)
    assert "Recovered an interrupted rollback of worker: its hold is recorded" in out
    assert "worker was already rolled back" in out
    assert_rolled_back_once(scenario, two)


def test_an_apply_after_the_kill_settles_the_journal(scenario: Scenario) -> None:
    """After a kill between the redeploy's answer and its record, an apply settles the
    journalled redeploy (the state keeps no entry of it) and succeeds."""
    release_twice(scenario)
    killed_at(scenario, f"{CLIENT}.redeploy", "after", "rollback", "worker", "--auto-approve")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert state_of(scenario).pending == []


def test_killed_while_waiting_for_the_revision(scenario: Scenario) -> None:
    """Recorded with its hold, killed while its revision rolls out: the hold is there
    (read back from the operation log), and the next rollback only waits for it."""
    two = release_twice(scenario)
    killed_at(
        scenario, f"{CLIENT}.progress_by_ids", "before", "rollback", "worker", "--auto-approve"
    )
    worker = recorded(scenario)
    assert worker.held is not None and worker.held.revision_id == two.good
    assert state_of(scenario).pending == []
    assert "already rolled back" in rollback_again(scenario)
    assert_rolled_back_once(scenario, two)


RECORDER = "planner.apply.recorder.StateRecorder"


@pytest.mark.parametrize(("method", "lifted"), [("commit", False), ("flush", True)])
def test_killed_during_a_release(scenario: Scenario, method: str, lifted: bool) -> None:
    """Killed before its write, the hold stays and one more release lifts it; killed
    after the operation log took the release but before the version folded it, the hold
    is gone for every reader and one more release says so. Either way the state reads,
    and plan runs."""
    release_twice(scenario)
    assert scenario.cli("rollback", "worker", "--auto-approve").code == 0
    killed_at(scenario, f"{RECORDER}.{method}", "before", "release", "worker")
    assert (recorded(scenario).held is None) is lifted
    again = scenario.cli("release", "worker", "--lock-timeout", "5")
    assert again.code == (1 if lifted else 0), again.out + again.err
    assert recorded(scenario).held is None
    assert scenario.plan().code == 0
