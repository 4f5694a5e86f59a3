"""`planner show PLANFILE`: a saved plan rendered like `planner plan`, seal checked."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.conftest import SECRET_VALUE, Scenario


@pytest.fixture
def saved(scenario: Scenario) -> Scenario:
    """A working dir with plan.json saved (creates of api and worker)."""
    result = scenario.plan("--out", "plan.json")
    assert result.code == 0, result.err
    return scenario


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_show_renders_as_plan_does(saved: Scenario, fmt: str) -> None:
    """Each format prints what `plan --format FMT` printed for the same plan."""
    planned = saved.plan("--format", fmt).out
    shown = saved.cli("show", "plan.json", "--format", fmt)
    assert shown.code == 0, shown.err
    if fmt == "json":
        assert json.loads(shown.out)["summary"] == json.loads(planned)["summary"]
        assert "saved" not in json.loads(shown.out)
    else:
        assert shown.out == planned
    assert SECRET_VALUE not in shown.out


def test_show_needs_no_control_plane(saved: Scenario) -> None:
    """With the local plane's database gone, show still renders (no network, no refresh)."""
    saved.db_path.unlink()
    result = saved.cli("show", "plan.json")
    assert result.code == 0, result.err
    assert "api" in result.out
    assert not saved.db_path.exists()


def test_show_works_from_another_directory(
    saved: Scenario, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The plan names its state by absolute path: show finds the key from anywhere."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    os.chdir(elsewhere)
    result = saved.cli("show", str(saved.root / "plan.json"), "--format", "markdown")
    assert result.code == 0, result.err
    assert "<!-- planner-plan:" in result.out


def test_show_refuses_an_altered_plan(saved: Scenario) -> None:
    """Changing any byte of what apply would send makes show refuse the file."""
    path = saved.root / "plan.json"
    path.write_text(path.read_text().replace("registry.example.com", "evil.example.com"))
    result = saved.cli("show", "plan.json")
    assert result.code == 1
    assert "was altered after `planner plan --out`" in result.err
    assert result.out == ""


def test_show_refuses_a_plan_of_another_state(saved: Scenario) -> None:
    """A plan checked against another state's key is refused, naming why."""
    other = saved.root / "other.state.json"
    saved.cli("plan", "--state", str(other), "--out", "other-plan.json")
    result = saved.cli("show", "plan.json", "--state", str(other))
    assert result.code == 1
    assert "sealed with another state's plan key" in result.err
