"""Reading the file: TOML or JSON by extension, errors that name the file and position."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from planner.config import reader
from planner.config.reader import read_raw
from planner.errors import ConfigError


def test_missing_file_names_the_file(in_tmp: Path) -> None:
    """A missing config file is a ConfigError naming it, with a hint to pass -c."""
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("nope.toml"))
    assert caught.value.message == "nope.toml: config file not found"
    assert caught.value.hint is not None and "-c FILE" in caught.value.hint


def test_unreadable_file_names_the_file(in_tmp: Path) -> None:
    """A path that cannot be read as a file (a directory) is an error naming it."""
    (in_tmp / "dir.toml").mkdir()
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("dir.toml"))
    assert caught.value.message.startswith("dir.toml: cannot read config file")


def test_unsupported_extension_is_an_error(in_tmp: Path) -> None:
    """Only .toml and .json are read; any other extension is named in the error."""
    (in_tmp / "planner.yaml").write_text("a: 1\n")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.yaml"))
    assert caught.value.message == "planner.yaml: unsupported config file type '.yaml'"


def test_toml_syntax_error_has_line_and_column(in_tmp: Path) -> None:
    """A TOML syntax error names the file, line and column."""
    (in_tmp / "planner.toml").write_text('[control_plane]\nbase_url = "x"\ntenant_id = \n')
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.toml"))
    assert caught.value.message.startswith("planner.toml:3:")
    assert "invalid TOML" in caught.value.message


def test_json_syntax_error_has_line_and_column(in_tmp: Path) -> None:
    """A JSON syntax error names the file, line and column."""
    (in_tmp / "planner.json").write_text('{\n  "deployments": {,}\n}\n')
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.json"))
    assert caught.value.message.startswith("planner.json:2:19: invalid JSON:")


def test_json_top_level_must_be_an_object(in_tmp: Path) -> None:
    """A JSON file whose top level is not an object is rejected."""
    (in_tmp / "planner.json").write_text("[1, 2]")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.json"))
    assert "top level must be an object" in caught.value.message


def test_json_duplicate_keys_are_remembered(in_tmp: Path) -> None:
    """Repeated JSON keys keep the last value and are recorded for the walk to report."""
    (in_tmp / "planner.json").write_text('{"deployments": {"a": {}, "a": {"source": "x"}}}')
    data = read_raw(Path("planner.json"))
    assert data["deployments"]["a"] == {"source": "x"}
    assert data["deployments"].duplicates == ["a"]


@pytest.mark.parametrize(
    "text",
    ['[t]\nb = "\\q"\n', "a = 1\na = 2\n", "x = [1,\n", "[deployments.api]\nsource = 'git_host'\n"],
)
def test_without_tomli_the_standard_library_reads_the_file_alike(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Where tomli is not installed, the standard library's tomllib parses the file: the
    same data, and a broken file reported with the same message and position."""
    path = in_tmp / "planner.toml"
    path.write_text(text, encoding="utf-8")

    def outcome() -> object:
        try:
            return reader.read_raw(path)
        except ConfigError as error:
            return error.message

    assert reader.TOML_PARSER == "tomli"
    with_tomli = outcome()
    monkeypatch.setitem(sys.modules, "tomli", None)  # `import tomli` raises ImportError
    try:
        importlib.reload(reader)
        assert reader.TOML_PARSER == "tomllib"
        assert outcome() == with_tomli
    finally:
        monkeypatch.undo()
        importlib.reload(reader)
    assert reader.TOML_PARSER == "tomli"
