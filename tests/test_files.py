"""Files a user names are read bounded: regular files only, 10 MB, 64 levels deep."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from types import MappingProxyType

import pytest

from planner.errors import ConfigError
from planner.files import (
    MAX_NESTING,
    MAX_WRITTEN_NESTING,
    check_nesting,
    parse_nested,
    read_user_text,
)


def test_a_fifo_is_refused_at_once_without_blocking(tmp_path: Path) -> None:
    """A FIFO with no writer would block a read forever: it is refused by its kind."""
    fifo = tmp_path / "planner.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"planner\.toml: cannot read config: it is a FIFO"):
        read_user_text(fifo, "config", ConfigError)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_even_behind_a_symlink(tmp_path: Path, device: str) -> None:
    """`/dev/zero` never ends; a character device is refused, also through a symlink."""
    link = tmp_path / "c.toml"
    link.symlink_to(device)
    with pytest.raises(ConfigError, match="character device, not a regular file"):
        read_user_text(link, "config", ConfigError)


def test_a_directory_is_refused_with_its_path(tmp_path: Path) -> None:
    """A directory is named as such, not an IsADirectoryError."""
    with pytest.raises(ConfigError, match=f"{tmp_path}: cannot read seed: it is a directory"):
        read_user_text(tmp_path, "seed", ConfigError)


def test_a_file_over_the_limit_is_refused_after_reading_at_most_the_limit(tmp_path: Path) -> None:
    """A file one byte over the limit is refused; one at the limit is read."""
    at_limit = tmp_path / "ok.toml"
    at_limit.write_bytes(b"#" * 1024)
    assert read_user_text(at_limit, "config", ConfigError, limit=1024) == "#" * 1024
    over = tmp_path / "big.toml"
    over.write_bytes(b"#" * 1025)
    with pytest.raises(ConfigError, match=r"big\.toml: cannot read config: larger than"):
        read_user_text(over, "config", ConfigError, limit=1024)


def test_text_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    """Latin-1 bytes are an error naming the file, not a UnicodeDecodeError."""
    latin = tmp_path / "l.toml"
    latin.write_bytes(b"name = '\xe9'")
    with pytest.raises(ConfigError, match=r"l\.toml: cannot read config: not UTF-8"):
        read_user_text(latin, "config", ConfigError)


def test_a_missing_file_is_left_to_the_caller(tmp_path: Path) -> None:
    """FileNotFoundError passes through: each caller words its own hint."""
    with pytest.raises(FileNotFoundError):
        read_user_text(tmp_path / "nope.toml", "config", ConfigError)


@pytest.mark.parametrize(
    ("parse", "text"),
    [(json.loads, "[" * 100_000), (tomllib.loads, "a = " + "[" * 100_000)],
    ids=["json", "toml"],
)
def test_100k_nested_brackets_are_one_error_not_a_recursion_error(parse, text) -> None:
    """The parser's own RecursionError becomes an error naming the file."""
    with pytest.raises(ConfigError, match=f"c: nested deeper than {MAX_NESTING} levels"):
        parse_nested(parse, text, Path("c"), ConfigError)


def test_nesting_is_counted_without_recursion() -> None:
    """64 levels pass, 65 do not, for tables and lists alike; scalars do not count."""
    ok: object = "leaf"
    for level in range(MAX_NESTING):
        ok = {"k": ok} if level % 2 else [ok]
    check_nesting(ok, Path("c"), ConfigError)
    with pytest.raises(ConfigError, match="nested deeper"):
        check_nesting([ok], Path("c"), ConfigError)


def test_a_limit_deeper_than_the_stack_is_counted_too() -> None:
    """A limit past what a recursive walk may take (5,000 levels) is counted all the same."""
    deep: object = "leaf"
    for level in range(5_000):
        deep = {"k": deep} if level % 2 else [deep]
    check_nesting(deep, Path("c"), ConfigError, limit=5_000)
    with pytest.raises(ConfigError, match="nested deeper than 4999 levels"):
        check_nesting(deep, Path("c"), ConfigError, limit=4_999)


def test_other_mappings_count_as_levels_and_tuples_do_not() -> None:
    """A read-only mapping is an object level like a dict; a tuple is no JSON value."""
    inner = MappingProxyType({"a": [1, ("x", ["y"])]})
    check_nesting({"k": inner}, Path("c"), ConfigError, limit=3)
    with pytest.raises(ConfigError, match="nested deeper than 2 levels"):
        check_nesting({"k": inner}, Path("c"), ConfigError, limit=2)


@pytest.mark.parametrize(
    ("parse", "text"), [(json.loads, "1" * 5000), (tomllib.loads, "a = " + "1" * 5000)]
)
def test_a_number_with_5000_digits_is_one_error_not_a_value_error(parse, text) -> None:
    """Python refuses to convert over 4300 digits; that is an error naming the file."""
    with pytest.raises(ConfigError, match=r"^c: a number has more than \d+ digits$"):
        parse_nested(parse, text, Path("c"), ConfigError)


def test_the_parsers_own_decode_errors_pass_through() -> None:
    """A syntax error stays the parser's (callers word it with line and column)."""
    with pytest.raises(json.JSONDecodeError):
        parse_nested(json.loads, "{", Path("c"), ConfigError)


def test_a_written_file_may_nest_as_deep_as_its_limit_and_no_deeper() -> None:
    """The limit of files the planner writes: 256 levels pass, 257 do not (the walk that
    counts them recurses that deep)."""
    ok: object = "leaf"
    for level in range(MAX_WRITTEN_NESTING):
        ok = {"k": ok} if level % 2 else [ok]
    check_nesting(ok, Path("s"), ConfigError, limit=MAX_WRITTEN_NESTING)
    with pytest.raises(ConfigError, match=f"nested deeper than {MAX_WRITTEN_NESTING} levels"):
        check_nesting([ok], Path("s"), ConfigError, limit=MAX_WRITTEN_NESTING)
