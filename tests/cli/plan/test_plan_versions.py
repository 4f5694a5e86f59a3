"""Saved plans across releases: a plan file of another release is applied exactly or
refused with an error naming both versions, never misread, and before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner import __version__
from planner.plan.saved import read_saved_plan, saved_plan_json, seal_saved_plan
from planner.state import LocalFileBackend
from tests.cli.conftest import Scenario
from tests.cli.plan.test_plan_out import edit_plan, names_on_server


def as_the_last_release_wrote_it(scenario: Scenario, path: Path) -> None:
    """Rewrite the saved plan at PATH as the release before `planner_version` wrote it:
    format 1.1 (no `policies`), no such key, sealed over what it holds with the state's
    plan key."""
    saved = read_saved_plan(path)
    old_plan = saved.plan.model_copy(update={"format_version": "1.1"})
    saved = saved.model_copy(update={"plan": old_plan, "planner_version": None, "seal": None})
    key = LocalFileBackend(scenario.state_path).plan_key(create=False)
    assert key is not None
    path.write_text(saved_plan_json(seal_saved_plan(saved, key)), encoding="utf-8")
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert "planner_version" not in raw["saved"] and "policies" not in raw
    assert raw["format_version"] == "1.1"


def test_a_plan_file_of_the_last_release_is_applied_exactly(scenario: Scenario) -> None:
    """A plan file written by the last release (format 1.1, no planner_version) is read
    as it was sealed and applied: what it planned, and nothing else, is created."""
    assert scenario.plan("--out", "plan.json").code == 0
    assert json.loads((scenario.root / "plan.json").read_text())["saved"]["planner_version"]
    as_the_last_release_wrote_it(scenario, scenario.root / "plan.json")
    result = scenario.cli("apply", "plan.json")
    assert result.code == 0, result.err
    assert names_on_server(scenario) == ["api", "worker"]


@pytest.mark.parametrize(
    ("version", "extra"),
    [("1.3", {"ordering": "by-wave"}), ("2.0", {})],
)
def test_a_plan_file_of_a_newer_format_is_refused_naming_both_releases(
    scenario: Scenario, version: str, extra: dict[str, Any]
) -> None:
    """A plan file of a newer format (keys this release does not know) is refused by
    apply and show, naming both formats and both releases; nothing is sent."""
    assert scenario.plan("--out", "plan.json").code == 0

    def as_newer(raw: dict[str, Any]) -> None:
        raw.update(format_version=version, **extra)
        raw["saved"]["planner_version"] = "9.9.9"

    edit_plan(scenario.root / "plan.json", as_newer)
    for argv in (("apply", "plan.json"), ("show", "plan.json")):
        result = scenario.cli(*argv)
        assert result.code == 1
        assert f"has plan format_version '{version}' (written by planner 9.9.9)" in result.err
        assert f"this planner ({__version__}) reads '1.2'" in result.err
    assert names_on_server(scenario) == []


def test_a_plan_file_of_the_same_format_with_unknown_keys_is_refused(scenario: Scenario) -> None:
    """A plan file of this format holding a key this release does not know (written by a
    release that added it) is refused naming both releases, never read without it."""
    assert scenario.plan("--out", "plan.json").code == 0

    def with_a_new_key(raw: dict[str, Any]) -> None:
        raw["saved"].update(planner_version="9.9.9", wave_size=2)

    edit_plan(scenario.root / "plan.json", with_a_new_key)
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    assert f"not a valid saved plan for this planner ({__version__}; " in result.err
    assert "written by planner 9.9.9" in result.err and "wave_size" in result.err
    assert names_on_server(scenario) == []
