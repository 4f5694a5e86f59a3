"""`planner state list | show | rm` through the CLI entry point."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.secrets import digest_key, secret_digest
from planner.state import LocalFileBackend, RecordedDeployment, StateDocument

SECRET = "sk-cli-secret-value-42"
ENDPOINT = "http://127.0.0.1:8123"


def _recorded(name: str, number: int) -> RecordedDeployment:
    key = digest_key("api-key", "lineage")
    return RecordedDeployment(
        name=name,
        id=f"00000000-0000-4000-8000-{number:012d}",
        managed={
            "source": "git_host",
            "source_config": {"resource_spec": {"cpu": 1, "max_scale": 3}},
            "source_revision_config": {"repo_ref": "main"},
        },
        secret_digests={"OPENAI_API_KEY": secret_digest(key, "OPENAI_API_KEY", SECRET)},
        latest_revision_id=f"rev-{number}",
        updated_at="2026-11-22T03:00:00Z",
    )


@pytest.fixture
def state_file(tmp_path: Path) -> Path:
    """A state with two deployments, written twice so it has a backup."""
    path = tmp_path / "planner.state.json"
    doc = StateDocument.new(ENDPOINT, None)
    doc.record(_recorded("support-agent", 1))
    doc.record(_recorded("billing-[x]", 2))
    doc.add_intent("update", "support-agent", deployment_id=_recorded("x", 1).id)
    backend = LocalFileBackend(path)
    backend.write(backend.write(doc))
    return path


def test_list_without_state_says_nothing_to_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no state file, list succeeds and says there is nothing, naming the file."""
    missing = tmp_path / "none.state.json"
    assert main(["state", "list", "--state", str(missing)]) == 0
    out = capsys.readouterr().out
    assert "nothing to show" in out
    assert str(missing) in out


def test_list_names_ids_and_revisions(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """list prints one sorted row per deployment, names printed literally."""
    assert main(["state", "list", "--state", str(state_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "ID", "LAST", "REVISION", "UPDATED"]
    assert lines[1].split()[:3] == ["billing-[x]", "00000000-0000-4000-8000-000000000002", "rev-2"]
    assert lines[2].split()[0] == "support-agent"


def test_list_json(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """list --format json gives name, id and last revision per deployment."""
    assert main(["state", "list", "--state", str(state_file), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["name"], row["latest_revision_id"]) for row in rows] == [
        ("billing-[x]", "rev-2"),
        ("support-agent", "rev-1"),
    ]


def test_default_state_path_from_config_stem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --state, `-c configs/prod.toml` reads configs/state/prod.state.json (beside
    the config, whatever the working directory), or the env dir."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PLANNER_STATE_DIR", raising=False)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "prod.toml").write_text("", encoding="utf-8")
    doc = StateDocument.new(ENDPOINT, None)
    doc.record(_recorded("from-default", 3))
    LocalFileBackend(tmp_path / "configs" / "state" / "prod.state.json").write(doc)
    assert main(["state", "list", "-c", "configs/prod.toml"]) == 0
    assert "from-default" in capsys.readouterr().out
    monkeypatch.setenv("PLANNER_STATE_DIR", str(tmp_path / "elsewhere"))
    assert main(["state", "list", "-c", "configs/prod.toml"]) == 0
    assert str(tmp_path / "elsewhere" / "prod.state.json") in capsys.readouterr().out


def test_show_values_and_hides_secrets(
    state_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """show prints ids and managed values by path; secrets only as (sensitive)."""
    assert main(["state", "show", "support-agent", "--state", str(state_file)]) == 0
    out = capsys.readouterr().out
    assert "id: 00000000-0000-4000-8000-000000000001" in out
    assert "source_config.resource_spec.max_scale = 3" in out
    assert 'source_revision_config.repo_ref = "main"' in out
    assert "OPENAI_API_KEY = (sensitive)" in out
    assert "update started at" in out
    assert SECRET not in out
    assert "hmac-sha256" not in out


def test_show_json_hides_secrets(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """show --format json marks each secret (sensitive) and has no digest."""
    argv = ["state", "show", "billing-[x]", "--state", str(state_file), "--format", "json"]
    assert main(argv) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["secrets"] == {"OPENAI_API_KEY": "(sensitive)"}
    assert "secret_digests" not in shown


def test_show_unknown_name(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """show of a name not in the state fails and lists the names that are."""
    assert main(["state", "show", "nope", "--state", str(state_file)]) == 1
    err = capsys.readouterr().err
    assert "nope is not in the state" in err
    assert "support-agent" in err


@pytest.mark.parametrize("action", ["show", "rm"])
def test_show_and_rm_without_state_file(
    action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """show and rm with no state file fail, naming the file."""
    missing = tmp_path / "none.state.json"
    assert main(["state", action, "x", "--state", str(missing)]) == 1
    assert f"no state file at {missing}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_corrupt_state_refused(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hand-edited state is refused with the backup to restore from."""
    state_file.write_text(state_file.read_text().replace("rev-1", "rev-9"))
    assert main(["state", "list", "--state", str(state_file)]) == 1
    err = capsys.readouterr().err
    assert "checksum mismatch" in err
    assert f"{state_file}.backup" in err


def test_rm_forgets_but_says_remote_remains(
    state_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rm drops one deployment, bumps the serial and says the remote one still exists."""
    before = LocalFileBackend(state_file).read()
    assert before is not None
    assert main(["state", "rm", "support-agent", "--state", str(state_file)]) == 0
    out = capsys.readouterr().out
    assert "Removed support-agent (deployment 00000000-0000-4000-8000-000000000001)" in out
    assert "still exists on the control plane" in out
    again = (
        f"planner import --state {state_file} support-agent 00000000-0000-4000-8000-000000000001"
    )
    assert f"To manage it again: {again}\n" in out
    after = LocalFileBackend(state_file).read()
    assert after is not None
    assert sorted(after.deployments) == ["billing-[x]"]
    assert after.serial == before.serial + 1


def test_rm_unknown_name_changes_nothing(
    state_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """rm of a name not in the state fails and leaves the file as it was."""
    text = state_file.read_text()
    assert main(["state", "rm", "nope", "--state", str(state_file)]) == 1
    assert "nope is not in the state" in capsys.readouterr().err
    assert state_file.read_text() == text


def test_rm_refused_while_locked(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rm fails at once on a locked state, naming the holder and the unlock command (with
    the `--state` it was given)."""
    with LocalFileBackend(state_file).lock("apply") as held:
        assert main(["state", "rm", "support-agent", "--state", str(state_file)]) == 1
    err = capsys.readouterr().err
    assert "state is locked" in err
    assert "operation: apply" in err
    assert f"planner unlock --state {state_file} {held.info.id}" in err


def test_rm_waits_with_lock_timeout(state_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rm with --lock-timeout succeeds once the holder lets go."""
    held = LocalFileBackend(state_file).lock("apply")
    releaser = threading.Timer(0.2, held.release)
    releaser.start()
    try:
        argv = ["state", "rm", "support-agent", "--state", str(state_file), "--lock-timeout", "10"]
        assert main(argv) == 0
    finally:
        releaser.join()
    assert "Removed support-agent" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["-1", "soon", "nan"])
def test_lock_timeout_must_be_seconds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--lock-timeout refuses negative and non-numeric values as a usage error."""
    with pytest.raises(SystemExit) as caught:
        main(["state", "rm", "x", "--lock-timeout", value])
    assert caught.value.code == 1
    assert "--lock-timeout" in capsys.readouterr().err
