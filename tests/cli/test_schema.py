"""`planner schema`: print the config schema, write all registered schemas, stay current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.commands.schema import SCHEMAS
from planner.cli.main import main
from planner.cli.run.schema import render_schema
from planner.config.json_schema import config_schema

SCHEMA_DIR = Path(__file__).parents[2] / "schemas"


@pytest.mark.parametrize("filename", sorted(SCHEMAS))
def test_checked_in_schema_is_current(filename: str) -> None:
    """schemas/<file> equals what the code generates (else regenerate it)."""
    path = SCHEMA_DIR / filename
    current = render_schema(SCHEMAS[filename]())
    checked_in = path.read_text(encoding="utf-8") if path.exists() else ""
    assert checked_in == current, (
        f"{path} is stale: run `planner schema --write schemas/` and commit the result"
    )


def test_schema_prints_the_config_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --write the config schema is printed as JSON on stdout."""
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == config_schema()


def test_write_creates_every_registered_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--write DIR creates DIR and writes each schema of the registry, naming each file."""
    target = tmp_path / "out"
    assert main(["schema", "--write", str(target)]) == 0
    assert sorted(p.name for p in target.iterdir()) == sorted(SCHEMAS)
    written = json.loads((target / "config.schema.json").read_text())
    assert written["title"] == "planner config"
    assert f"wrote {target / 'config.schema.json'}" in capsys.readouterr().out


def test_write_to_a_file_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--write naming an existing file fails with exit 1 and a clear error, not an internal one."""
    target = tmp_path / "a-file"
    target.write_text("")
    assert main(["schema", "--write", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"Cannot write the schemas to {target}" in err
    assert "internal error" not in err


def test_registry_is_extensible(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A schema added to SCHEMAS is written by --write too."""
    monkeypatch.setitem(SCHEMAS, "extra.schema.json", lambda: {"title": "extra"})
    assert main(["schema", "--write", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "extra.schema.json").read_text()) == {"title": "extra"}
