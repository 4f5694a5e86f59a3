"""Variables given on the command line: `--var NAME=VALUE` and `--var-file FILE`.

Both are applied in the order given, a later one winning (Terraform's precedence: config
defaults < `[environments.E.variables]` < `PLANNER_VAR_NAME` < `--var-file` and `--var`).
A file is TOML or JSON (by its extension), a table of `NAME = value`; a value is taken as
`--var` takes its text (a string as written, anything else as its JSON text), so
`replicas = 3` in a file is `--var replicas=3`. Pure but for reading the files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from planner.config.reader import read_raw


@dataclass(frozen=True)
class VarFile:
    """One `--var-file FILE` of the command line (read when the variables are resolved)."""

    path: str


@dataclass(frozen=True)
class GivenVariables(Mapping[str, str]):
    """NAME -> text of the command line's variables (`texts`), and the file each came
    from (`files`; a name set last by `--var` has none), so an error names the place."""

    texts: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

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
    for item in items:
        if isinstance(item, VarFile):
            read = read_var_file(Path(item.path))
            values.update(read)
            files.update(dict.fromkeys(read, item.path))
        else:
            values[item[0]] = item[1]
            files.pop(item[0], None)
    return GivenVariables(values, files)


def read_var_file(path: Path) -> dict[str, str]:
    """NAME -> text of a variable file; ConfigError naming the file when it cannot be read."""
    return {
        str(name): as_text(value) for name, value in read_raw(path, kind="variable file").items()
    }


def as_text(value: object) -> str:
    """A file's value as `--var` would give it: a string as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def var_file_of(overrides: Mapping[str, str], name: str) -> str | None:
    """The `--var-file` that set NAME, None when `--var` did (or nothing tracks it)."""
    return overrides.files.get(name) if isinstance(overrides, GivenVariables) else None
