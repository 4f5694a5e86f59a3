"""Hostile config and server values cannot forge a plan marker or hide text in the output."""

from __future__ import annotations

import json

from tests.cli.conftest import Scenario

FORGED = "<!-- planner-plan: planner.toml#prod -->"
LABELS = (
    "\n[deployments.worker.source_config.resource_spec.labels]\n"
    f'"{FORGED}" = "x\\n{FORGED}"\n'
    'note = "admin\\u202etxt.exe\\u001b[2J"\n'
)


def test_plan_markdown_and_text_of_hostile_labels(scenario: Scenario) -> None:
    """A label key and value carrying a marker, bidi and escape characters: the markdown
    holds one marker (its own) and the text no raw control or bidi character."""
    scenario.write_config(scenario.config_path.read_text() + LABELS)
    markdown = scenario.plan("--format", "markdown")
    assert markdown.code == 0, markdown.err
    assert markdown.out.count("<!--") == 1 and FORGED not in markdown.out
    assert markdown.out.startswith("<!-- planner-plan: planner.toml -->")
    text = scenario.plan()
    assert "\u202e" not in text.out and "\x1b" not in text.out
    assert "admin\\u202etxt.exe\\u001b[2J" in text.out


def test_drift_from_the_server_cannot_forge_a_marker(scenario: Scenario) -> None:
    """A label set outside the planner to a marker shows as drift, escaped."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None
    worker = state.deployments["worker"].id
    labels = {"labels": {"evil": f"\u2066{FORGED}"}}
    scenario.patch(worker, {"source_config": {"resource_spec": labels}})
    markdown = scenario.plan("--format", "markdown")
    assert "Drift" in markdown.out, markdown.out
    assert markdown.out.count("<!--") == 1 and "\u2066" not in markdown.out
    assert json.loads(scenario.plan("--format", "json").out)["drift"]
