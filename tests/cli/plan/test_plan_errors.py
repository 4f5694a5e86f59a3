"""`planner plan` refuses what cannot be applied: plan errors, locks, bad or foreign state."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from planner.api.errors import ConflictError
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.state import LocalFileBackend, StateDocument, embedded_endpoint
from tests.cli.conftest import Scenario


def test_immutable_change_is_an_error_naming_field_values_and_way_out(scenario: Scenario) -> None:
    """A changed repo_url exits 1 and names the field, old and new value and --replace."""
    scenario.adopt("api")
    scenario.edit_config(
        'repo_url = "https://git.example.com/acme/api"',
        'repo_url = "https://git.example.com/acme/api-v2"',
    )
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 1
    assert "Errors: the plan cannot be applied" in result.out
    assert (
        "api: source_config.repo_url cannot change after creation: "
        '"https://git.example.com/acme/api" → "https://git.example.com/acme/api-v2"'
    ) in result.out
    assert "--replace api" in result.out
    errors = json.loads(scenario.plan("--format", "json").out)["errors"]
    assert [(e["name"], e["path"]) for e in errors] == [("api", "source_config.repo_url")]


def test_replace_resolves_the_immutable_change(scenario: Scenario) -> None:
    """With --replace the same immutable change is a replace, not an error."""
    scenario.adopt("api")
    scenario.edit_config('acme/api"', 'acme/api-v2"')
    result = scenario.plan("--replace", "api", "--detailed-exitcode")
    assert result.code == 2, result.out
    assert "± api will be replaced" in result.out


def test_protected_deployment_cannot_be_destroyed(scenario: Scenario) -> None:
    """--destroy of a deployment with lifecycle.protect is a plan error (exit 1)."""
    scenario.adopt("worker")
    scenario.edit_config(
        "[deployments.worker]\n", "[deployments.worker]\nlifecycle = { protect = true }\n"
    )
    result = scenario.plan("--destroy")
    assert result.code == 1
    assert "worker is protected (lifecycle.protect) and would be deleted" in result.out


def test_unmanaged_existing_name_prints_the_import_command(scenario: Scenario) -> None:
    """A configured name that exists remotely but not in the state is an error with the
    exact `planner import NAME ID` command, and nothing is planned to be created twice."""
    worker = scenario.create_remote("worker")
    result = scenario.plan()
    assert result.code == 1
    assert result.out.count(f"`planner import worker {worker.id}`") == 1
    plan = json.loads(scenario.plan("--format", "json").out)
    assert {c["name"]: c["action"] for c in plan["changes"]} == {"api": "create"}


def test_the_import_command_repeats_the_config_option(scenario: Scenario) -> None:
    """With `-c FILE`, the suggested import command carries `-c FILE` too, so it adopts
    into the same state the plan read."""
    worker = scenario.create_remote("worker")
    (scenario.root / "other.toml").write_text(scenario.config_path.read_text())
    result = scenario.plan("-c", "other.toml")
    assert result.code == 1
    assert result.out.count(f"`planner import -c other.toml worker {worker.id}`") == 1


def test_recreated_outside_under_the_same_name_is_an_error_not_a_duplicate(
    scenario: Scenario,
) -> None:
    """A managed deployment deleted outside and re-created outside under its name is an
    error naming the new id and the way to adopt it, never a second create."""
    old = scenario.adopt("worker")
    scenario.delete(old.id)
    again = None
    for _ in range(100):  # deletion is asynchronous: the name frees up once it is gone
        try:
            again = scenario.create_remote("worker")
            break
        except ConflictError:
            time.sleep(0.05)
    assert again is not None
    result = scenario.plan("--format", "json")
    assert result.code == 1
    plan = json.loads(result.out)
    assert [c["name"] for c in plan["changes"] if c["action"] == "create"] == ["api"]
    (error,) = [e for e in plan["errors"] if e["name"] == "worker"]
    assert again.id in error["message"]
    assert f"planner state rm worker && planner import worker {again.id}" in error["hint"]


def test_import_then_plan_clears_the_error(scenario: Scenario) -> None:
    """Running the printed import command makes the next plan clean for that name."""
    worker = scenario.create_remote("worker")
    assert scenario.cli("import", "worker", worker.id).code == 0
    result = scenario.plan("--only", "worker", "--detailed-exitcode")
    assert result.code == 0, result.out


def test_unknown_option_names_are_errors(scenario: Scenario) -> None:
    """--only / --exclude / --replace with names the plan does not know exit 1 naming them."""
    result = scenario.plan("--only", "nope", "--exclude", "ghost", "--replace", "worker")
    assert result.code == 1
    assert "--only nope: no deployment of that name" in result.err
    assert "--exclude ghost: no deployment of that name" in result.err
    assert "--replace worker: not in the state (nothing to replace)" in result.err
    assert result.out == ""


def test_refresh_only_refuses_conflicting_flags(scenario: Scenario) -> None:
    """--refresh-only with --destroy or --out is refused before touching anything."""
    assert "--refresh-only cannot be combined with --destroy" in (
        scenario.plan("--refresh-only", "--destroy").err
    )
    assert scenario.plan("--refresh-only", "--out", "p.json").code == 1
    assert scenario.state() is None


def test_plan_during_a_held_lock_names_the_holder(scenario: Scenario) -> None:
    """A plan made while a writer holds the lock succeeds and names the holder, the
    operation and since when, in text, markdown and JSON (`lock`)."""
    scenario.adopt("worker")
    with LocalFileBackend(scenario.state_path).lock("apply") as held:
        text = scenario.plan("--lock-timeout", "0")  # accepted for old scripts, no effect
        markdown = scenario.plan("--format", "markdown")
        data = scenario.plan("--format", "json")
    assert (text.code, markdown.code, data.code) == (0, 0, 0), text.err
    for out in (text.out, markdown.out):
        assert f"locked by {held.info.who} (pid {held.info.pid}) (apply)" in out
        assert f"since {held.info.created}" in out
    lock = json.loads(data.out)["lock"]
    assert lock["operation"] == "apply" and lock["since"] == held.info.created
    assert lock["id"] == held.info.id and str(held.info.pid) in lock["holder"]


def test_plan_takes_no_lock(scenario: Scenario) -> None:
    """A plan leaves no lock behind and says nothing of one when the lock is free."""
    scenario.adopt("worker")
    result = scenario.plan("--format", "json")
    assert result.code == 0 and json.loads(result.out)["lock"] is None
    assert LocalFileBackend(scenario.state_path).lock_info() is None


def test_corrupted_state_is_refused(scenario: Scenario) -> None:
    """A hand-edited state fails the checksum: exit 1 naming the file and the backup."""
    scenario.adopt("worker")
    scenario.adopt("api")  # a second write leaves a backup
    text = scenario.state_path.read_text().replace('"worker"', '"w0rker"', 1)
    scenario.state_path.write_text(text)
    result = scenario.plan()
    assert result.code == 1
    assert "is corrupt or was edited by hand (checksum mismatch)" in result.err
    assert f"{scenario.state_path}.backup" in result.err


def test_foreign_state_is_refused(scenario: Scenario) -> None:
    """A state written for another control plane is refused, naming both endpoints."""
    foreign = StateDocument.new("https://other.example.com", None)
    LocalFileBackend(scenario.state_path).write(foreign)
    result = scenario.plan()
    assert result.code == 1
    assert "belongs to another control plane or workspace" in result.err
    assert "https://other.example.com" in result.err
    assert "embedded:" in result.err


def test_lost_create_is_planned_as_adopted_not_as_an_error(scenario: Scenario) -> None:
    """A name with a pending create intent found remotely is no import error: the plan
    reports it as recovered (the next apply records it), and plans it against its live
    values."""
    made = scenario.create_remote("worker")
    doc = StateDocument.new(embedded_endpoint(scenario.db_path), DEFAULT_TENANT_ID)
    doc.add_intent("create", "worker")
    LocalFileBackend(scenario.state_path).write(doc)
    result = scenario.plan("--only", "worker", "--format", "json")
    plan = json.loads(result.out)
    assert result.code == 0, result.out
    assert plan["errors"] == []
    assert plan["changes"][0]["action"] == "no_op"
    assert plan["changes"][0]["deployment_id"] == made.id
    assert plan["recovered"] == [
        {"name": "worker", "operation": "create", "deployment_id": made.id, "paths": []}
    ]
    assert plan["warnings"] == [] and plan["drift"] == []


def test_relative_and_absolute_state_dir_are_one_control_plane(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state made with the default relative `state/` is used, not refused as foreign,
    when PLANNER_STATE_DIR names the same directory absolutely (and the other way round)."""
    monkeypatch.delenv("PLANNER_STATE_DIR")
    assert scenario.cli("apply", "--auto-approve").code == 0
    monkeypatch.setenv("PLANNER_STATE_DIR", str(scenario.root / "state"))
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 0, result.err
    monkeypatch.setenv("PLANNER_STATE_DIR", "./state/")
    assert scenario.plan("--detailed-exitcode").code == 0


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["directory", "fifo", "device", "huge"])
def test_hostile_state_path_is_one_clear_line(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A state path that is a directory, a FIFO, /dev/zero or a huge file fails at once
    with exit 1 and one error line naming it, never a hang or an internal error."""
    path = scenario.root / "hostile.state.json"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        monkeypatch.setattr("planner.state.localfile.MAX_STATE_BYTES", 1024)
        path.write_bytes(b" " * 2048)
    result = scenario.plan("--state", str(path))
    assert result.code == 1
    errors = [line for line in result.err.splitlines() if line.startswith("Error:")]
    assert errors == [errors[0]] and str(path) in errors[0], result.err
    assert "internal error" not in result.err and "Traceback" not in result.err


def test_state_dir_under_a_file_is_one_clear_line(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLANNER_STATE_DIR below a regular file (NotADirectoryError even for root) is one
    clear line naming the embedded database, exit 1."""
    (scenario.root / "blocker").write_text("")
    monkeypatch.setenv("PLANNER_STATE_DIR", str(scenario.root / "blocker" / "state"))
    result = scenario.plan()
    assert result.code == 1
    assert "Error: cannot open the local control plane database" in result.err
    assert "a part of the path is a file" in result.err
    assert "internal error" not in result.err


@pytest.mark.slow
def test_immutable_state_dir_fails_cleanly_and_writes_nothing(scenario: Scenario) -> None:
    """A state directory that cannot be written (chattr +i stops root too): apply fails
    with one clear line naming the path, exit 1, and nothing is created remotely."""
    state_dir = scenario.root / "state"
    state_dir.mkdir()
    done = subprocess.run(["chattr", "+i", str(state_dir)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        result = scenario.cli("apply", "--auto-approve")
    finally:
        subprocess.run(["chattr", "-i", str(state_dir)], check=False)
    assert result.code == 1
    assert "Error: cannot open the local control plane database" in result.err
    assert str(scenario.db_path) in result.err
    assert "internal error" not in result.err
    assert list(state_dir.iterdir()) == []


@pytest.mark.slow
def test_immutable_state_file_keeps_the_old_state(scenario: Scenario) -> None:
    """A state file that cannot be replaced: apply fails naming it, exit 1, and the state
    file is unchanged (no half-written file, no temp file left)."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = scenario.state_path.read_bytes()
    scenario.edit_config("worker:1.0.0", "worker:1.0.1")
    done = subprocess.run(["chattr", "+i", str(scenario.state_path)], check=False)
    if done.returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        result = scenario.cli("apply", "--auto-approve")
    finally:
        subprocess.run(["chattr", "-i", str(scenario.state_path)], check=False)
    assert result.code == 1
    assert f"Error: {scenario.state_path}: cannot write state file" in result.err
    assert "internal error" not in result.err
    assert scenario.state_path.read_bytes() == before
    assert not list(scenario.state_path.parent.glob("*.tmp"))
