"""Variables given on the command line: `--var NAME=VALUE` and `--var-file FILE`.

Both are applied in the order given, a later one winning (Terraform's precedence: config
defaults < `[environments.E.variables]` < `PLANNER_VAR_NAME` < `--var-file` and `--var`).
A file is TOML or JSON (by its extension), a table of `NAME = value`; a value is taken as
`--var` takes its text (a string as written, anything else as its JSON text), so
`replicas = 3` in a file is `--var replicas=3`; a list or table is remembered as one
(`shapes`), so only a variable whose default is a list or table takes it. A date or time
has no text form (as in the config): the file is refused. Pure but for reading the files.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.config.diagnostics import Problem, config_error
from planner.config.reader import read_raw

DATES_REFUSED = "dates and times are not supported; write the value as a string"
FILE_HINT = "a variable file is a table of NAME = value (see docs/guides/environments.md)"


@dataclass(frozen=True)
class VarFile:
    """One `--var-file FILE` of the command line (read when the variables are resolved)."""

    path: str


@dataclass(frozen=True)
class GivenVariables(Mapping[str, str]):
    """NAME -> text of the command line's variables (`texts`), the file each came from
    (`files`; a name set last by `--var` has none), so an error names the place, and
    whether a file gave a list or a table (`shapes`: NAME -> "list" or "table")."""

    texts: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    shapes: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> str:
        return self.texts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)


def given_variables(items: Iterable[tuple[str, str] | VarFile]) -> GivenVariables:
    """The `--var` pairs and `--var-file` files in command-line order; a later one wins."""
    values: dict[str, str] = {}
    files: dict[str, str] = {}
    shapes: dict[str, str] = {}
    for item in items:
        if isinstance(item, VarFile):
            raw = read_var_values(Path(item.path))
            values.update((name, as_text(value)) for name, value in raw.items())
            files.update(dict.fromkeys(raw, item.path))
            for name, value in raw.items():
                shape = shape_of(value)
                if shape is None:
                    shapes.pop(name, None)
                else:
                    shapes[name] = shape
        else:
            values[item[0]] = item[1]
            files.pop(item[0], None)
            shapes.pop(item[0], None)
    return GivenVariables(values, files, shapes)


def read_var_file(path: Path) -> dict[str, str]:
    """NAME -> text of a variable file; ConfigError naming the file when it cannot be read."""
    return {name: as_text(value) for name, value in read_var_values(path).items()}


def read_var_values(path: Path) -> dict[str, Any]:
    """NAME -> value of a variable file, as parsed; ConfigError naming the file when it
    cannot be read or holds a date or time (each one named)."""
    values = {str(name): value for name, value in read_raw(path, kind="variable file").items()}
    problems = [
        Problem((name,), DATES_REFUSED, file=str(path))
        for name, value in values.items()
        if has_date(value)
    ]
    if problems:
        raise config_error(str(path), problems, environment=None, hint=FILE_HINT)
    return values


def has_date(value: object) -> bool:
    """Whether VALUE is, or holds, a TOML date or time (no JSON form)."""
    if isinstance(value, dt.date | dt.time):
        return True
    if isinstance(value, Mapping):
        return any(has_date(item) for item in value.values())
    return isinstance(value, list) and any(has_date(item) for item in value)


def shape_of(value: object) -> str | None:
    """ "list" or "table" for a structured value, None for text, numbers and booleans."""
    if isinstance(value, list):
        return "list"
    return "table" if isinstance(value, Mapping) else None


def as_text(value: object) -> str:
    """A file's value as `--var` would give it: a string as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def var_file_of(overrides: Mapping[str, str], name: str) -> str | None:
    """The `--var-file` that set NAME, None when `--var` did (or nothing tracks it)."""
    return overrides.files.get(name) if isinstance(overrides, GivenVariables) else None


def shape_given(overrides: Mapping[str, str], name: str) -> str | None:
    """ "list" or "table" when a `--var-file` gave NAME one, else None."""
    return overrides.shapes.get(name) if isinstance(overrides, GivenVariables) else None
