"""Read a config file into raw data: TOML or JSON, chosen by the file's extension.

TOML is parsed by `tomli` (its compiled wheel parses a large config about twice as fast
as the standard library), or by the standard library's `tomllib` where tomli is not
installed: the same parser, the same messages, so the same error positions.

Where `rtoml` (a compiled TOML parser, three to four times faster again) is installed, it
reads the file first; its data is used only when it parsed the text without an error and
the text has no byte-order mark (which tomli refuses). Anything else is parsed again by
tomli: every error, its message and position, are tomli's. Both parsers give equal data,
in the same order, for every valid case of the TOML test suite (`tests/config/test_reader.py`
checks them against each other).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.errors import ConfigError
from planner.files import parse_nested, read_user_text

try:
    import tomli as tomllib
except ImportError:  # tomli is a dependency, but an install without it still works
    import tomllib  # type: ignore[no-redef]  # the same API, from the standard library

try:
    import rtoml

    _fast_loads: Callable[[str], dict[str, Any]] | None = rtoml.loads
except ImportError:  # no wheel for this platform: tomli alone
    _fast_loads = None

TOML_PARSER = tomllib.__name__  # which of the two reads TOML here (and names its errors)

SUFFIXES = (".toml", ".json")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
# A simple table header at the start of a line: `[a.b-c]` or `[[a.b]]`, bare keys only.
_SIMPLE_HEADER = re.compile(r"\n\[\[?([A-Za-z0-9_.-]+)\]\]?[ \t]*\r?(?=\n|$)")
_INDENTED_BRACKET = re.compile(r"\n[ \t]+\[")


def read_raw(path: Path, *, kind: str = "config file") -> dict[str, Any]:
    """The file's top-level table; ConfigError naming the file (a KIND) when it cannot be
    read."""
    _check_suffix(path, kind)
    return parse_raw(path, read_text(path, kind), kind=kind)


def parse_raw(path: Path, text: str, *, kind: str = "config file") -> dict[str, Any]:
    """TEXT, the contents of the file PATH (TOML or JSON by its extension), as `read_raw`
    reads it: the same parser, the same errors naming PATH."""
    _check_suffix(path, kind)
    parse = _parse_json if path.suffix.lower() == ".json" else _parse_toml
    data = parse_nested(lambda text: parse(path, text), text, path, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be an object (a table)")
    return data


def _check_suffix(path: Path, kind: str) -> None:
    if path.suffix.lower() not in SUFFIXES:
        raise ConfigError(
            f"{path}: unsupported {kind} type '{path.suffix or '(none)'}'",
            hint="use a .toml or .json file",
        )


def read_text(path: Path, kind: str = "config file") -> str:
    """The text of the file PATH (a KIND), bounded as every file a user names is."""
    try:
        return read_user_text(path, kind, ConfigError)
    except FileNotFoundError:
        hint = "create it (see examples/), or pass -c FILE" if kind == "config file" else None
        raise ConfigError(f"{path}: {kind} not found", hint=hint) from None


def _parse_toml(path: Path, text: str) -> Any:
    if _fast_loads is not None and not text.startswith("\ufeff") and _in_order(text):
        try:
            return _fast_loads(text)
        except Exception:  # tomli parses it again, for its own error
            pass
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        if found is None:
            raise ConfigError(f"{path}: invalid TOML: {message}") from None
        line, column = found.groups()
        reason = message[: found.start()]
        hint = None
        if text.startswith("\ufeff") and (line, column) == ("1", "1"):
            hint = "the file starts with a byte order mark (U+FEFF): save it as UTF-8 without one"
        raise ConfigError(f"{path}:{line}:{column}: invalid TOML: {reason}", hint=hint) from None


def _in_order(text: str) -> bool:
    """Whether rtoml surely keeps TEXT's tables in tomli's order: no header names a table
    that a header before it created (`[a.b.c]` then `[a.b]`: rtoml places `b` by its own
    header, tomli where it first appeared; arrays of tables with sub-tables are left to
    tomli too). False as well when a line starts with `[` that is not a simple header
    (quoted keys, a comment after it, an indented one, an array's line...)."""
    text = "\n" + text
    if _INDENTED_BRACKET.search(text) is not None:
        return False
    keys = _SIMPLE_HEADER.findall(text)
    if len(keys) != text.count("\n["):
        return False
    implicit: set[str] = set()  # tables a header created above their own; prefix-closed
    for key in keys:
        if key in implicit:
            return False
        end = key.rfind(".")
        while end > 0 and key[:end] not in implicit:
            implicit.add(key[:end])
            end = key.rfind(".", 0, end)
    return True


def _parse_json(path: Path, text: str) -> Any:
    # Imported here: the key checks need the models, reading `--var-file`s as TOML does not.
    from planner.config.keys import json_object

    try:
        return json.loads(text, object_pairs_hook=json_object)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
