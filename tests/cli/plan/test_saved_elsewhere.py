"""A saved plan applied from elsewhere: its config is found relative to the plan file
(a moved checkout) or by its absolute path; `-c` overrides both; a missing one says the
paths came from the plan file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.controlplane.settings import EMBEDDED_API_KEY
from planner.state import LocalFileBackend
from tests.cli.conftest import BASE_CONFIG, Scenario


@pytest.fixture
def checkout(scenario: Scenario, loopback_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`checkout/planner.toml` on a served control plane, planned into checkout/plan.json
    from the repository root."""
    monkeypatch.delenv("PLANNER_STATE_DIR")
    monkeypatch.setenv("PLANNER_BASE_URL", loopback_url)
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    root = scenario.root / "checkout"
    root.mkdir()
    (root / "planner.toml").write_text(BASE_CONFIG)
    planned = scenario.plan("-c", "checkout/planner.toml", "--out", "checkout/plan.json")
    assert planned.code == 0, planned.err
    return root


def test_the_plan_records_the_config_relative_to_itself_and_absolute(checkout: Path) -> None:
    """The `saved` section holds both spellings of the config path."""
    saved = json.loads((checkout / "plan.json").read_text())["saved"]
    assert saved["config_relative"] == "planner.toml"
    assert saved["config_path"] == str(checkout / "planner.toml")


def test_a_moved_checkout_applies_its_saved_plan(
    scenario: Scenario, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `mv checkout moved`, `apply moved/plan.json` from another directory finds
    the config beside the plan and the state beside the config, and applies the plan."""
    moved = checkout.rename(scenario.root / "moved")
    (scenario.root / "ci").mkdir()
    monkeypatch.chdir(scenario.root / "ci")
    result = scenario.cli("apply", "../moved/plan.json")
    assert result.code == 0, result.out + result.err
    state = LocalFileBackend(moved / "state" / "planner.state.json").read()
    assert state is not None and sorted(state.deployments) == ["api", "worker"]
    assert list((scenario.root / "ci").iterdir()) == []
    planned = scenario.plan("-c", "../moved/planner.toml", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err


def test_a_copied_checkout_applies_to_its_own_state(
    scenario: Scenario, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the original checkout still in place, `apply copy/plan.json` uses the copy's
    config and the state beside it (the state goes where the config is found), never the
    original's."""
    scenario.cli("plan", "-c", "checkout/planner.toml")  # the original's state exists
    copy = Path(shutil.copytree(checkout, scenario.root / "copy"))
    monkeypatch.chdir(scenario.root / "copy")
    result = scenario.cli("apply", "plan.json")
    assert result.code == 0, result.out + result.err
    copied = LocalFileBackend(copy / "state" / "planner.state.json").read()
    assert copied is not None and sorted(copied.deployments) == ["api", "worker"]
    original = LocalFileBackend(checkout / "state" / "planner.state.json").read()
    assert original is not None and original.deployments == {}


def test_a_missing_config_names_the_plan_files_paths_and_c_overrides(
    scenario: Scenario, checkout: Path
) -> None:
    """A plan file copied away from a moved checkout names both recorded paths and that
    they came from the plan file; `-c` then names the config and the plan applies."""
    moved = checkout.rename(scenario.root / "moved")
    (scenario.root / "plans").mkdir()
    planfile = shutil.copy(moved / "plan.json", scenario.root / "plans" / "plan.json")
    refused = scenario.cli("apply", str(planfile))
    assert refused.code == 1
    assert str(scenario.root / "plans" / "planner.toml") in refused.err
    assert str(checkout / "planner.toml") in refused.err
    assert "the paths the plan file" in refused.err and "-c FILE" in refused.err
    applied = scenario.cli("apply", str(planfile), "-c", str(moved / "planner.toml"))
    assert applied.code == 0, applied.out + applied.err
    assert (moved / "state" / "planner.state.json").is_file()


def test_only_the_content_of_the_config_must_match(scenario: Scenario, checkout: Path) -> None:
    """A config found by its path but changed since the plan is refused as stale."""
    config = checkout.rename(scenario.root / "moved") / "planner.toml"
    config.write_text(config.read_text().replace('repo_ref = "main"', 'repo_ref = "v2"'))
    refused = scenario.cli("apply", "moved/plan.json")
    assert refused.code == 1
    assert "stale" in refused.err


def test_a_missing_config_is_named_once_when_both_recorded_paths_are_one(
    scenario: Scenario, checkout: Path
) -> None:
    """The config deleted in place: its relative and absolute paths are one file, named
    once in the error."""
    (checkout / "planner.toml").unlink()
    refused = scenario.cli("apply", str(checkout / "plan.json"))
    assert refused.code == 1
    assert refused.err.count(str(checkout / "planner.toml")) == 1, refused.err
    assert " nor " not in refused.err
