"""`planner state mv OLD NEW`: a record re-keyed by hand, on a file and in PostgreSQL."""

from __future__ import annotations

import pytest

from planner.state import LocalFileBackend
from planner.state.postgres import PostgresBackend
from tests.cli.conftest import BASE_CONFIG, Scenario
from tests.postgres import unique_name


def rename_worker_table(scene: Scenario) -> None:
    """The config's `worker` table as `runner`, keeping the remote name `worker`."""
    scene.edit_config("[deployments.worker]", '[deployments.runner]\nname = "worker"')
    scene.edit_config("[deployments.worker.", "[deployments.runner.")


def test_state_mv_rekeys_a_file_state_and_the_plan_agrees(scenario: Scenario) -> None:
    """After `state mv worker runner` and the table renamed to match, nothing to plan."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None
    worker_id = state.deployments["worker"].id
    moved = scenario.cli("state", "mv", "worker", "runner")
    assert moved.code == 0, moved.err
    assert f"Moved worker to runner (deployment {worker_id})" in moved.out
    after = scenario.state()
    assert after is not None and sorted(after.deployments) == ["api", "runner"]
    assert after.deployments["runner"].id == worker_id
    assert after.deployments["runner"].name == "runner"
    rename_worker_table(scenario)
    assert scenario.plan("--detailed-exitcode").code == 0


def test_state_mv_refuses_an_unknown_old_and_an_existing_new(scenario: Scenario) -> None:
    """An unknown OLD or a NEW already recorded is refused, and the state is left as is."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = scenario.state()
    unknown = scenario.cli("state", "mv", "nope", "runner")
    assert unknown.code == 1 and "nope is not in the state" in unknown.err
    taken = scenario.cli("state", "mv", "worker", "api")
    assert taken.code == 1 and "api is already in the state" in taken.err
    invalid = scenario.cli("state", "mv", "worker", "Not A Name")
    assert invalid.code == 1
    assert scenario.state() == before


def test_state_mv_in_postgresql(
    scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same move on a PostgreSQL state: a new version records `runner`, not `worker`."""
    name = unique_name()
    monkeypatch.setenv("PLANNER_STATE", postgres_url)
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{name}"\n')
    assert scenario.cli("apply", "--auto-approve").code == 0
    moved = scenario.cli("state", "mv", "worker", "runner")
    assert moved.code == 0, moved.err
    backend = PostgresBackend(postgres_url, name=name)
    try:
        doc = backend.read()
    finally:
        backend.close()
    assert doc is not None and sorted(doc.deployments) == ["api", "runner"]
    rename_worker_table(scenario)
    assert scenario.plan("--detailed-exitcode").code == 0


def test_state_mv_takes_the_state_lock(scenario: Scenario) -> None:
    """While another writer holds the lock, `state mv` is refused and moves nothing."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    with LocalFileBackend(scenario.state_path).lock("apply"):
        refused = scenario.cli("state", "mv", "worker", "runner")
    assert refused.code != 0 and "locked" in refused.err
    state = scenario.state()
    assert state is not None and sorted(state.deployments) == ["api", "worker"]
