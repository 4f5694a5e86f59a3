"""GITHUB_STEP_SUMMARY: plan and apply append their markdown to the CI step summary."""

from __future__ import annotations

import pytest

from tests.cli.conftest import SECRET_VALUE, Scenario


def test_plan_and_apply_append_their_markdown(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan's markdown, then apply's result table, accumulate in the summary file."""
    summary = scenario.root / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert scenario.plan("--format", "json").code == 0
    assert scenario.cli("apply", "--auto-approve").code == 0
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert text.count("<!-- planner-plan: planner.toml -->") == 1
    assert "| Deployment | Action | Revision | Status | Time |" in text
    assert "| `api` | create |" in text and "Apply complete:" in text
    assert SECRET_VALUE not in text


def test_no_summary_without_the_variable(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without GITHUB_STEP_SUMMARY nothing is written beside the output, and the plan's
    markdown is not even rendered (at fleet scale that is work for nothing)."""

    def not_rendered(*args: object, **kwargs: object) -> str:
        raise AssertionError("the markdown of a text plan was rendered")

    monkeypatch.setattr("planner.render.markdown.render_markdown", not_rendered)
    assert scenario.plan().code == 0
    assert sorted(p.name for p in scenario.root.iterdir()) == ["planner.toml", "state"]


def test_an_unwritable_summary_is_a_warning(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary path that cannot be written warns on stderr; the plan still succeeds."""
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(scenario.root / "missing" / "summary.md"))
    result = scenario.plan()
    assert result.code == 0
    assert "Warning: cannot append to GITHUB_STEP_SUMMARY" in result.err
