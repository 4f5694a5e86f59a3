"""Problems found in a config file: a location, a message, and how they print.

A location is a tuple of keys and list indexes from the top of the file
(`("deployments", "api", "source_config", "resource_spec", "cpu")`); it prints as
`deployments.api.source_config.resource_spec.cpu`, list items as `sidecars[0]`, and keys
that are not plain words in double quotes (`deployments."my.app"`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.errors import ConfigError

Loc = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_$-]+$")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the config, at `loc`; in `file` when that is not the config
    (a `--var-file`), so the line names the file to fix."""

    loc: Loc
    message: str
    file: str | None = None

    def render(self, file_label: str) -> str:
        label = self.file or file_label
        where = format_loc(self.loc)
        return f"{label}: {where}: {self.message}" if where else f"{label}: {self.message}"


def format_loc(loc: Iterable[str | int]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
            continue
        key = part if _PLAIN_KEY.match(part) else f'"{part}"'
        text += f".{key}" if text else key
    return text


def with_article(word: str) -> str:
    """WORD after its indefinite article: 'an int', 'a string', 'a uint'."""
    return f"an {word}" if word and word[0].lower() in "aeio" else f"a {word}"


def has_path(data: Any, loc: Loc) -> bool:
    """Whether `loc` names a value present in raw config data."""
    node = data
    for part in loc:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return False
        elif not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def under(loc: Loc, prefixes: Iterable[Loc]) -> bool:
    """Whether `loc` is one of `prefixes` or lies below one of them."""
    return any(loc[: len(prefix)] == prefix for prefix in prefixes)


def config_error(
    label: str, problems: list[Problem], *, environment: str | None, hint: str
) -> ConfigError:
    """The one error for a config's problems: a headline naming the file (and the
    environment), one detail line per problem."""
    count = len(problems)
    noun = "problem" if count == 1 else "problems"
    where = f" (environment {environment})" if environment else ""
    return ConfigError(
        f"{label}{where} is invalid ({count} {noun})",
        details=[problem.render(label) for problem in problems],
        hint=hint,
    )
