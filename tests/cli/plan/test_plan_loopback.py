"""`planner plan` against a control plane served over loopback HTTP (`--base-url`)."""

from __future__ import annotations

import json

import pytest

from planner.controlplane.settings import EMBEDDED_API_KEY
from planner.plan.saved import read_saved_plan
from tests.cli.conftest import SECRET_VALUE, Scenario


def test_plan_over_http_ties_the_state_to_the_url(
    scenario: Scenario, loopback_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --base-url and PLANNER_API_KEY the plan talks HTTP; the saved plan and state
    name that URL; neither the key nor a secret value is printed or saved."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    result = scenario.plan("--base-url", loopback_url, "--out", "plan.json", "--format", "json")
    assert result.code == 0, result.err
    assert "embedded" not in result.err
    assert json.loads(result.out)["summary"]["create"] == 2
    saved = read_saved_plan(scenario.root / "plan.json")
    state = scenario.state()
    assert state is not None and saved.endpoint == state.endpoint == loopback_url
    text = (scenario.root / "plan.json").read_text() + result.out + result.err
    assert EMBEDDED_API_KEY not in text and SECRET_VALUE not in text


def test_same_state_against_the_embedded_plane_is_refused(
    scenario: Scenario, loopback_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state made against the served URL is foreign to the embedded plane."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    assert scenario.plan("--base-url", loopback_url, "--out", "plan.json").code == 0
    result = scenario.plan()
    assert result.code == 1
    assert "belongs to another control plane or workspace" in result.err
    assert loopback_url in result.err


def test_config_error_exits_1(scenario: Scenario) -> None:
    """An invalid config stops the plan with exit 1 and the problem on stderr."""
    scenario.edit_config('source = "internal_docker"', 'source = "floppy_disk"')
    result = scenario.plan()
    assert result.code == 1
    assert "deployments.worker.source" in result.err
    assert result.out == ""
