"""`planner plan` through the CLI: every action in text, markdown and JSON, and drift."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import SECRET_VALUE, Scenario


def actions(result_out: str) -> dict[str, str]:
    return {c["name"]: c["action"] for c in json.loads(result_out)["changes"]}


def test_fresh_state_plans_creates_in_every_format(scenario: Scenario) -> None:
    """With no state, every configured deployment is a create in text, markdown and JSON."""
    text = scenario.plan()
    assert text.code == 0, text.err
    assert "+ api will be created" in text.out
    assert "+ worker will be created" in text.out
    assert "Plan: 2 to create, 0 to update in place, 0 new revisions, 0 to delete." in text.out
    assert "secrets.API_TOKEN = (sensitive)" in text.out
    markdown = scenario.plan("--format", "markdown")
    assert markdown.out.startswith(
        "<!-- planner-plan: planner.toml -->\n### Plan: `planner.toml`\n\n**Plan: "
    )
    assert "| + | `api` | create |" in markdown.out
    assert actions(scenario.plan("--format", "json").out) == {"api": "create", "worker": "create"}
    for result in (text, markdown):
        assert SECRET_VALUE not in result.out + result.err


def test_plan_announces_the_embedded_plane_and_writes_no_state(scenario: Scenario) -> None:
    """A plain plan says which control plane it uses on stderr and leaves no state file."""
    result = scenario.plan()
    assert "Using the embedded local control plane" in result.err
    assert scenario.state() is None


def test_adopted_deployments_are_no_op(scenario: Scenario) -> None:
    """Deployments created as configured and imported plan as no changes (exit 0 / 0)."""
    scenario.adopt("api")
    scenario.adopt("worker")
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 0, result.out + result.err
    assert "No changes. The deployments match the configuration." in result.out
    assert actions(scenario.plan("--format", "json").out) == {"api": "no_op", "worker": "no_op"}


def test_in_place_field_is_an_update(scenario: Scenario) -> None:
    """Changing build_on_push plans an update in place, classed in-place."""
    scenario.adopt("api")
    scenario.edit_config("build_on_push = false", "build_on_push = true")
    result = scenario.plan("--only", "api")
    assert "~ api will be updated in place" in result.out
    assert "~ source_config.build_on_push: false → true  (in-place)" in result.out
    change = json.loads(scenario.plan("--format", "json", "--only", "api").out)["changes"][0]
    assert change["action"] == "update"
    assert change["fields"][0]["class"] == "in-place"
    assert change["patch"] == [
        {"op": "replace", "path": "/source_config/build_on_push", "value": True}
    ]


def test_new_revision_fields_and_markdown_details(scenario: Scenario) -> None:
    """A changed repo_ref plans a new revision; markdown shows it in a diff block."""
    scenario.adopt("api")
    scenario.edit_config('repo_ref = "main"', 'repo_ref = "release"')
    result = scenario.plan("--only", "api")
    assert "↻ api will get a new revision" in result.out
    assert 'source_revision_config.repo_ref: "main" → "release"  (new-revision)' in result.out
    markdown = scenario.plan("--only", "api", "--format", "markdown").out
    assert "<details><summary>↻ api will get a new revision</summary>" in markdown
    assert '+ source_revision_config.repo_ref: "release"  # new-revision' in markdown


def test_removed_from_config_is_a_delete(scenario: Scenario) -> None:
    """A managed deployment that left the config is planned for deletion, listed first."""
    worker = scenario.adopt("worker")
    scenario.edit_config("[deployments.worker]", "[deployments.worker-gone]")
    scenario.edit_config(
        "[deployments.worker.source_revision_config]",
        "[deployments.worker-gone.source_revision_config]",
    )
    result = scenario.plan("--exclude", "api", "--exclude", "worker-gone")
    assert f"- worker will be deleted  (id {worker.id})" in result.out
    assert "0 to create, 0 to update in place, 0 new revisions, 1 to delete." in result.out


def test_replace_on_request(scenario: Scenario) -> None:
    """--replace NAME plans delete-then-create of a managed deployment."""
    worker = scenario.adopt("worker")
    result = scenario.plan("--replace", "worker", "--only", "worker")
    assert f"± worker will be replaced (deleted, then created again)  (id {worker.id})" in (
        result.out
    )
    assert actions(scenario.plan("--replace", "worker", "--format", "json").out)["worker"] == (
        "replace"
    )


def test_destroy_plans_every_managed_deletion(scenario: Scenario) -> None:
    """--destroy deletes what the state manages, never what it does not."""
    scenario.adopt("worker")
    result = scenario.plan("--destroy", "--format", "json")
    assert actions(result.out) == {"worker": "delete"}
    assert json.loads(result.out)["mode"] == "destroy"


def test_drift_is_shown_and_planned_back(scenario: Scenario) -> None:
    """A field changed outside the planner shows in the drift section and is planned back."""
    api = scenario.adopt("api")
    scenario.patch(api.id, {"source_config": {"build_on_push": True}})
    result = scenario.plan()
    assert "Drift: changed outside the planner (recorded → observed)" in result.out
    assert "api: source_config.build_on_push: false → true" in result.out
    assert "source_config.build_on_push: true → false  (in-place, drifted)" in result.out
    plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == [
        {"name": "api", "path": "source_config.build_on_push", "recorded": False, "observed": True}
    ]


def test_secret_changed_outside_is_drift_without_values(scenario: Scenario) -> None:
    """A secret rotated outside is drift and a change, printed only as (sensitive)."""
    api = scenario.adopt("api")
    scenario.patch(api.id, {"secrets": [{"name": "API_TOKEN", "value": "rotated-outside"}]})
    result = scenario.plan("--only", "api")
    assert "api: secrets.API_TOKEN: value changed" in result.out
    assert "(new-revision, value changed, drifted)" in result.out
    assert "rotated-outside" not in result.out
    assert SECRET_VALUE not in result.out


def test_deleted_outside_is_drift_and_created_again(scenario: Scenario) -> None:
    """A managed deployment deleted outside shows as drift and is planned as a create."""
    worker = scenario.adopt("worker")
    scenario.delete(worker.id)
    result = scenario.plan("--only", "worker")
    assert f"worker: deleted outside the planner (was id {worker.id})" in result.out
    assert "+ worker will be created" in result.out
    assert "deleted outside the planner: will be created again" in result.out


def test_color_only_on_a_terminal(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped output is plain; a terminal gets colour unless NO_COLOR is set."""
    assert "\x1b[" not in scenario.plan().out
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    assert "\x1b[" in scenario.plan().out
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in scenario.plan().out
