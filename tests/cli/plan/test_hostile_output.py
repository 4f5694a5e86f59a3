"""Hostile config and server values cannot forge a plan marker or hide text in the output."""

from __future__ import annotations

import json
import re
import tomllib

from planner.state import LocalFileBackend
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


UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069]")
BIDI = "admin\u202etxt.exe\u2066"


def hostile_state(scenario: Scenario) -> str:
    """The applied state with one more record (as a hand edit or another tool could write
    it) whose name, revision, time and values carry bidi characters; its name."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    doc = scenario.state()
    assert doc is not None
    worker = doc.deployments["worker"]
    managed = {"source_config": {"resource_spec": {"labels": {"note": BIDI}}}}
    hostile = worker.model_copy(
        update={
            "name": "worker\u202e",
            "managed": managed,
            "latest_revision_id": "rev\u2066-1",
            "updated_at": "2026\u202e-01-01",
        }
    )
    doc.record(hostile)
    LocalFileBackend(scenario.state_path).write(doc)
    return hostile.name


def test_every_view_of_state_and_config_escapes_bidi_and_controls(scenario: Scenario) -> None:
    """state list, show and history, status, history, config (TOML and JSON) and policy
    test print no raw bidi or control character: each is escaped, as in plan views."""
    config = scenario.config_path.read_text() + LABELS.replace("x\\n", "x")
    config += '\n[policies.p]\nexpression = "true"\nmessage = "m\\u202e"\n'
    scenario.write_config(config)
    name = hostile_state(scenario)
    views = [
        ("state", "list"),
        ("state", "show", name),
        ("state", "history"),
        ("status",),
        ("history", name),
        ("config",),
        ("config", "--format", "json"),
        ("policy", "test"),
    ]
    for argv in views:
        result = scenario.cli(*argv)
        assert not UNSAFE.search(result.out + result.err), (argv, result.out, result.err)
    shown = scenario.cli("state", "show", name).out
    assert "worker\\u202e" in shown and "admin\\u202etxt.exe\\u2066" in shown
    resolved = scenario.cli("config").out
    labels = tomllib.loads(resolved)["deployments"]["worker"]["source_config"]["resource_spec"]
    assert labels["labels"]["note"] == "admin\u202etxt.exe\x1b[2J"


def test_an_empty_state_list_names_its_path_literally_and_escaped(scenario: Scenario) -> None:
    """`state list` of a missing state at a path with `[b]` and a bidi character prints the
    path as it is (no markup) with the character escaped."""
    path = scenario.root / "[b]x\u202e.state.json"
    listed = scenario.cli("state", "list", "--state", str(path))
    assert listed.code == 0 and "[b]x\\u202e.state.json" in listed.out


def test_plan_json_and_state_pull_escape_bidi_and_controls_keeping_the_value(
    scenario: Scenario,
) -> None:
    """`plan --format json` and `state pull` print no raw bidi or control character (as
    `config --format json`): each is a JSON `\\uXXXX` escape, so the parsed values are the
    very characters."""
    scenario.write_config(scenario.config_path.read_text() + LABELS.replace("x\\n", "x"))
    planned = scenario.plan("--format", "json")
    assert planned.code == 0, planned.err
    assert not UNSAFE.search(planned.out), planned.out
    assert "admin\u202etxt.exe" in json.dumps(json.loads(planned.out), ensure_ascii=False)
    name = hostile_state(scenario)
    pulled = scenario.cli("state", "pull")
    assert pulled.code == 0, pulled.err
    assert not UNSAFE.search(pulled.out), pulled.out
    assert json.loads(pulled.out)["deployments"][name]["name"] == "worker\u202e"
