"""SIGTERM while a rollback's revision rolls out: the run stops waiting (the redeploy was
sent and its hold recorded), says how to finish, exits 143; the next run finishes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import recorded, release_twice, state_of

pytestmark = pytest.mark.slow


def test_sigterm_while_waiting_stops_the_wait_and_keeps_the_hold(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM once the redeploy's revision is rolling out: exit 143, the stop message
    and the submitted result printed, the hold recorded with nothing journalled; one
    more rollback waits for the revision and exits 0."""
    two = release_twice(scenario)
    monkeypatch.setenv("PLANNER_EMBEDDED_DEPLOY_SECONDS", "5")
    process = subprocess.Popen(
        [sys.executable, "-m", "planner", "rollback", "worker", "--auto-approve"],
        cwd=scenario.root,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        seen.append(line)
        if "worker: " in line and "redeploying" not in line:  # a status of its revision
            break
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    text = "".join(seen) + out
    assert process.returncode == 143, text + err
    assert "Terminated (SIGTERM)" in text and "Rollback of worker submitted" in text
    worker = recorded(scenario)
    assert worker.held is not None and worker.held.revision_id == two.good
    assert state_of(scenario).pending == []
    monkeypatch.setenv("PLANNER_EMBEDDED_DEPLOY_SECONDS", "0.05")
    again = scenario.cli("rollback", "worker", "--auto-approve")
    assert again.code == 0, again.out + again.err
    assert recorded(scenario).active_revision_id == worker.latest_revision_id
