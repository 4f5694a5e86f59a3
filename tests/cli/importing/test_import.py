"""`planner import NAME DEPLOYMENT_ID`: adopt an existing deployment into the state."""

from __future__ import annotations

import json

from planner.secrets import digest_key, secret_digest
from planner.state import LocalFileBackend
from tests.cli.conftest import SECRET_VALUE, Scenario


def test_import_records_observed_values_and_suggests_plan(scenario: Scenario) -> None:
    """Import records id, revisions and the OBSERVED managed values, then points at plan."""
    remote = scenario.create_remote("api", source_config={"build_on_push": True})
    result = scenario.cli("import", "api", remote.id)
    assert result.code == 0, result.err
    assert f"Imported api (deployment {remote.id}) into the state" in result.out
    assert "Run `planner plan` to see how it differs from the config." in result.out
    state = scenario.state()
    assert state is not None
    recorded = state.deployments["api"]
    assert (recorded.id, recorded.latest_revision_id) == (remote.id, remote.latest_revision_id)
    assert recorded.managed["source_config"]["build_on_push"] is True
    key = digest_key("local-dev-key", state.lineage)
    assert recorded.secret_digests == {"API_TOKEN": secret_digest(key, "API_TOKEN", SECRET_VALUE)}
    assert SECRET_VALUE not in scenario.state_path.read_text()


def test_next_plan_shows_the_real_difference(scenario: Scenario) -> None:
    """After import the plan shows the config against the live values, without drift."""
    remote = scenario.create_remote("api", source_config={"build_on_push": True})
    scenario.cli("import", "api", remote.id)
    plan = json.loads(scenario.plan("--only", "api", "--format", "json").out)
    assert plan["drift"] == []
    change = plan["changes"][0]
    assert change["action"] == "update"
    assert [(f["path"], f["before"], f["after"]) for f in change["fields"]] == [
        ("source_config.build_on_push", True, False)
    ]


def test_import_refuses_a_name_that_does_not_match(scenario: Scenario) -> None:
    """Importing a deployment under another name than its own fails naming both."""
    remote = scenario.create_remote("worker")
    result = scenario.cli("import", "api", remote.id)
    assert result.code == 1
    assert f"deployment {remote.id} is named 'worker', not 'api'" in result.err
    assert f"planner import worker {remote.id}" in result.err
    assert scenario.state() is None


def test_import_refuses_an_unknown_id(scenario: Scenario) -> None:
    """An id the control plane does not know fails clearly, recording nothing."""
    missing = "00000000-0000-4000-8000-00000000dead"
    result = scenario.cli("import", "api", missing)
    assert result.code == 1
    assert f"no deployment {missing} on embedded:" in result.err
    assert scenario.state() is None


def test_import_refuses_a_name_not_in_the_config(scenario: Scenario) -> None:
    """NAME must be declared in the config; the error lists what the config declares."""
    remote = scenario.create_remote("worker")
    scenario.edit_config("[deployments.worker]", "[deployments.other]")
    scenario.edit_config(
        "[deployments.worker.source_revision_config]",
        "[deployments.other.source_revision_config]",
    )
    result = scenario.cli("import", "worker", remote.id)
    assert result.code == 1
    assert "worker is not a deployment of the config planner.toml" in result.err
    assert "api, other" in result.err


def test_import_refuses_a_name_already_managed(scenario: Scenario) -> None:
    """A name already in the state is not overwritten; the error says how to re-adopt."""
    scenario.adopt("worker")
    other = scenario.create_remote("api")
    result = scenario.cli("import", "worker", other.id)
    assert result.code == 1
    assert "is named 'api', not 'worker'" in result.err
    again = scenario.cli("import", "worker", scenario.state().deployments["worker"].id)  # type: ignore[union-attr]
    assert "worker is already in the state" in again.err
    assert "planner state rm worker" in again.err


def test_import_waits_for_the_lock(scenario: Scenario) -> None:
    """Import takes the state lock: a held lock fails it at once naming the holder."""
    remote = scenario.create_remote("worker")
    with LocalFileBackend(scenario.state_path).lock("apply"):
        result = scenario.cli("import", "worker", remote.id, "--lock-timeout", "0")
    assert result.code == 1
    assert "state is locked" in result.err
    assert scenario.state() is None
