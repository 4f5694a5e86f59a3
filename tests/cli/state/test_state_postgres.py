"""The CLI with its state in PostgreSQL: URL sources, names, versions, saved plans, unlock."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from planner.errors import StateError
from planner.secrets import url_without_password
from planner.state import LocalFileBackend, StateDocument
from planner.state.location import open_backend
from planner.state.postgres import PostgresBackend
from tests.cli.conftest import BASE_CONFIG, SECRET_VALUE, Scenario
from tests.postgres import unique_name, url_password


@pytest.fixture
def team(scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario with PLANNER_STATE a PostgreSQL URL and a state name of its own."""
    monkeypatch.setenv("PLANNER_STATE", postgres_url)
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{unique_name()}"\n')
    return scenario


def pg_backend(scene: Scenario, url: str, name: str | None = None) -> PostgresBackend:
    text = scene.config_path.read_text()
    found = name or text.split('name = "', 1)[1].split('"', 1)[0]
    return PostgresBackend(url, name=found)


def test_apply_records_every_write_as_a_version(team: Scenario, postgres_url: str) -> None:
    """apply writes the state to PostgreSQL: history has one version per write, ending
    at the current serial, and the next plan is empty."""
    assert team.cli("apply", "--auto-approve").code == 0
    assert not (team.root / "state" / "planner.state.json").exists()
    backend = pg_backend(team, postgres_url)
    try:
        current = backend.read()
        history = backend.history()
    finally:
        backend.close()
    assert current is not None and sorted(current.deployments) == ["api", "worker"]
    assert [v.serial for v in history] == list(range(current.serial, 0, -1))
    assert SECRET_VALUE not in json.dumps([v.model_dump() for v in history])
    assert team.plan("--detailed-exitcode").code == 0
    listed = team.cli("state", "list")
    assert "api" in listed.out and "worker" in listed.out


def test_history_pull_push_and_rollback_commands(team: Scenario, tmp_path: Path) -> None:
    """history lists versions, pull prints the state file text, push and rollback write
    new versions; a stale push is refused unless forced."""
    assert team.cli("apply", "--auto-approve").code == 0
    history = json.loads(team.cli("state", "history", "--format", "json").out)
    serial = history[0]["serial"]
    assert [row["serial"] for row in history] == list(range(serial, 0, -1))
    assert "SERIAL" in team.cli("state", "history").out
    pulled = team.cli("state", "pull").out
    assert json.loads(pulled)["serial"] == serial
    saved = tmp_path / "pulled.state.json"
    saved.write_text(pulled)
    assert "nothing pushed" in team.cli("state", "push", str(saved)).out
    rolled = team.cli("state", "rollback", "1")
    assert rolled.code == 0 and f"written as version {serial + 1}" in rolled.out
    refused = team.cli("state", "push", str(saved))
    assert refused.code == 1 and "older than the stored one" in refused.err
    forced = team.cli("state", "push", str(saved), "--force")
    assert forced.code == 0 and f"as version {serial + 2}" in forced.out
    assert team.plan("--detailed-exitcode").code == 0


def test_push_moves_a_file_state_to_postgres_and_back(
    scenario: Scenario, postgres_url: str, tmp_path: Path
) -> None:
    """A file state pushed to PostgreSQL plans the same; pulled back it is a valid file."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    url_args = ("--state", postgres_url)
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{unique_name()}"\n')
    pushed = scenario.cli("state", "push", str(scenario.state_path), *url_args)
    assert pushed.code == 0, pushed.err
    assert scenario.plan("--detailed-exitcode", *url_args).code == 0
    pulled = scenario.cli("state", "pull", *url_args).out
    copy = tmp_path / "copy.state.json"
    copy.write_text(pulled)
    back = LocalFileBackend(copy).read()
    assert back is not None and back.lineage == scenario.state().lineage  # type: ignore[union-attr]


def test_saved_plan_applies_with_its_postgres_state(team: Scenario) -> None:
    """plan --out seals with a key kept in PostgreSQL; show verifies it; the plan applies."""
    assert team.plan("--out", "changes.plan").code == 0
    saved = json.loads((team.root / "changes.plan").read_text())
    assert saved["saved"]["state_path"].startswith("postgresql://")
    assert ":***@" not in saved["saved"]["state_path"]
    shown = team.cli("show", "changes.plan", "--format", "json")
    assert shown.code == 0, shown.err
    assert json.loads(shown.out)["summary"] == saved["summary"]
    applied = team.cli("apply", "changes.plan")
    assert applied.code == 0, applied.err
    assert team.plan("--detailed-exitcode").code == 0


def test_locked_state_names_holder_and_unlock_clears_left_record(
    team: Scenario, postgres_url: str
) -> None:
    """A held lock fails a writer naming the holder (password masked) while a plan
    succeeds naming it; a record left by a dead holder is cleared by `planner unlock ID`."""
    backend = pg_backend(team, postgres_url)
    try:
        with backend.lock("apply") as held:
            result = team.cli("apply", "--auto-approve")
            assert result.code == 1 and "state is locked" in result.err
            assert held.info.id in result.err and "operation: apply" in result.err
            password = url_password(postgres_url)
            assert password is None or password not in result.err
            planned = team.plan()
            assert planned.code == 0 and f"locked by {held.info.who}" in planned.out
        left = backend.lock("apply", lease=0.2)
        left.abandon()
        cleared = team.cli("unlock", left.info.id)
        assert cleared.code == 0 and left.info.id in cleared.out
        assert backend.lock_info() is None
    finally:
        backend.close()


def test_password_in_config_url_is_refused(scenario: Scenario) -> None:
    """A password in `[state] url` is a config error naming state.url, never echoed."""
    scenario.write_config(
        BASE_CONFIG + '\n[state]\nurl = "postgresql://team:hunter2-secret@127.0.0.1/db"\n'
    )
    result = scenario.plan()
    assert result.code == 1
    assert "state.url" in result.err and "must not contain a password" in result.err
    assert "hunter2-secret" not in result.err + result.out
    listing = scenario.cli("state", "list")
    assert listing.code == 1 and "state.url" in listing.err


def test_config_url_and_environment_name_the_state(
    scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[state] url` (password from PGPASSWORD) and `--env` name the state `<name>.<env>`."""
    name = unique_name()
    bare = url_without_password(postgres_url)
    monkeypatch.setenv("PGPASSWORD", url_password(postgres_url) or "")
    scenario.write_config(
        BASE_CONFIG + f'\n[state]\nurl = "{bare}"\nname = "{name}"\n\n[environments.dev]\n'
    )
    assert scenario.cli("apply", "--auto-approve", "--env", "dev").code == 0
    backend = PostgresBackend(postgres_url, name=f"{name}.dev")
    try:
        assert backend.read() is not None
    finally:
        backend.close()
    assert scenario.cli("state", "list").code == 1  # an environment is required


def test_without_psycopg_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """A postgresql:// state without psycopg installed names the extra to install."""
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.delitem(sys.modules, "planner.state.postgres", raising=False)
    with pytest.raises(StateError) as caught:
        open_backend("postgresql://u:pw-secret@127.0.0.1/db", name="x")
    assert "planner[postgres]" in (caught.value.hint or "")
    assert "pw-secret" not in caught.value.message


def test_file_paths_still_open_files(tmp_path: Path) -> None:
    """A location that is not a postgresql:// URL is a state file."""
    backend = open_backend(str(tmp_path / "x.state.json"), name="ignored")
    backend.write(StateDocument.new("http://127.0.0.1:8123", None))
    assert isinstance(backend, LocalFileBackend) and backend.history()[0].serial == 1
