"""`planner validate`: every problem on its own line and exit 1, or one OK line and exit 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner.cli.main import main

VALID = """
[deployments.api]
source = "internal_docker"
source_revision_config = { image_uri = "registry.example.com/api:1" }

[deployments.web]
source = "internal_docker"
source_revision_config = { image_uri = "registry.example.com/web:1" }
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("API_TOKEN", raising=False)
    return tmp_path


def test_valid_config_prints_ok_and_exits_0(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A valid planner.toml (the default -c) prints one OK line with the count."""
    (workdir / "planner.toml").write_text(VALID)
    assert main(["validate"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "OK: planner.toml is valid (2 deployments)\n"
    assert captured.err == ""


def test_invalid_config_prints_every_problem_and_exits_1(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each problem is one stderr line `<file>: <path>: <message>`; nothing on stdout."""
    text = VALID.replace('image_uri = "registry.example.com/web:1"', "imgae_uri = 1")
    text += "[deployments.api.source_config.resource_spec]\ncpu = 0\n"
    (workdir / "bad.toml").write_text(text)
    assert main(["validate", "-c", "bad.toml"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0] == "Error: bad.toml is invalid (3 problems)"
    assert lines[1:4] == [
        "  bad.toml: deployments.api.source_config.resource_spec.cpu: must be greater than 0",
        "  bad.toml: deployments.web.source_revision_config.imgae_uri: "
        "unknown key (did you mean 'image_uri'?)",
        "  bad.toml: deployments.web.source_revision_config.image_uri: "
        "required for source 'internal_docker'",
    ]
    assert lines[4].startswith("Hint: ")


def test_missing_file_exits_1_naming_it(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing config file is one error line naming the file."""
    assert main(["validate", "-c", "absent.toml"]) == 1
    assert "absent.toml: config file not found" in capsys.readouterr().err


def test_warnings_print_on_stderr_without_values(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A literal secret warns on stderr (value never shown) and still validates."""
    (workdir / "planner.toml").write_text(VALID + '[deployments.api.secrets]\nTOKEN = "hunter2"\n')
    assert main(["validate"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "OK: planner.toml is valid (2 deployments)\n"
    assert captured.err.startswith("Warning: planner.toml: deployments.api.secrets.TOKEN: ")
    assert "hunter2" not in captured.err


def test_env_secret_read_from_process_environment(
    workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate never needs a secret's variable: unset, it is a note (exit 0); set, silence."""
    text = VALID + '[deployments.api.secrets]\nTOKEN = { env = "API_TOKEN" }\n'
    (workdir / "planner.toml").write_text(text)
    assert main(["validate"]) == 0
    err = capsys.readouterr().err
    assert "Note: environment variable API_TOKEN is not set (plan and apply need it)" in err
    monkeypatch.setenv("API_TOKEN", "value")
    assert main(["validate"]) == 0
    assert "API_TOKEN" not in capsys.readouterr().err


def test_single_deployment_is_singular(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The OK line says '1 deployment'."""
    (workdir / "one.json").write_text('{"deployments": {"api": {"source": "internal_template"}}}')
    assert main(["validate", "--config", "one.json"]) == 0
    assert capsys.readouterr().out == "OK: one.json is valid (1 deployment)\n"


@pytest.mark.parametrize("kind", ["fifo", "zero", "deep", "huge"])
def test_a_hostile_config_path_is_one_line_and_exit_1(
    workdir: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A FIFO, /dev/zero, 100k nested brackets or an 11 MB file: one error line naming
    the file, exit 1, no traceback, no hang."""
    config = workdir / "planner.toml"
    if kind == "fifo":
        os.mkfifo(config)
    elif kind == "zero":
        config.symlink_to("/dev/zero")
    elif kind == "deep":
        config.write_text("a = " + "[" * 100_000)
    else:
        config.write_text("#" * (11 * 1024 * 1024))
    assert main(["validate"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("Error: planner.toml: ")
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
