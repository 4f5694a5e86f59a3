"""Read a config file into raw data: TOML or JSON, chosen by the file's extension.

TOML is parsed by `tomli` (its compiled wheel parses a large config about twice as fast
as the standard library), or by the standard library's `tomllib` where tomli is not
installed: the same parser, the same messages, so the same error positions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from planner.errors import ConfigError
from planner.files import parse_nested, read_user_text

try:
    import tomli as tomllib
except ImportError:  # tomli is a dependency, but an install without it still works
    import tomllib  # type: ignore[no-redef]  # the same API, from the standard library

TOML_PARSER = tomllib.__name__  # which of the two reads TOML here

SUFFIXES = (".toml", ".json")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def read_raw(path: Path, *, kind: str = "config file") -> dict[str, Any]:
    """The file's top-level table; ConfigError naming the file (a KIND) when it cannot be
    read."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ConfigError(
            f"{path}: unsupported {kind} type '{path.suffix or '(none)'}'",
            hint="use a .toml or .json file",
        )
    text = _read_text(path, kind)
    parse = _parse_toml if suffix == ".toml" else _parse_json
    data = parse_nested(lambda text: parse(path, text), text, path, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be an object (a table)")
    return data


def _read_text(path: Path, kind: str) -> str:
    try:
        return read_user_text(path, kind, ConfigError)
    except FileNotFoundError:
        hint = "create it (see examples/), or pass -c FILE" if kind == "config file" else None
        raise ConfigError(f"{path}: {kind} not found", hint=hint) from None


def _parse_toml(path: Path, text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        if found is None:
            raise ConfigError(f"{path}: invalid TOML: {message}") from None
        line, column = found.groups()
        reason = message[: found.start()]
        raise ConfigError(f"{path}:{line}:{column}: invalid TOML: {reason}") from None


def _parse_json(path: Path, text: str) -> Any:
    # Imported here: the key checks need the models, reading `--var-file`s as TOML does not.
    from planner.config.keys import json_object

    try:
        return json.loads(text, object_pairs_hook=json_object)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
