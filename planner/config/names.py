"""Plain names: what may become part of a path or a key (environment and state names).

An environment's name becomes part of its state file's name (`<stem>.<env>.state.json`)
and of its PostgreSQL state's name, so it must never climb out of the state directory:
letters, digits, `.`, `_` and `-`, starting with a letter or digit, with no `..` (so no
`/`, no NUL, nothing a file system reads as a parent).
"""

from __future__ import annotations

import re

PLAIN_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"
PLAIN_NAME_RULE = (
    "must be a plain name: letters, digits, '.', '_' and '-', starting with a letter or "
    "digit, at most 200 characters, without '..'"
)
_PLAIN_NAME = re.compile(PLAIN_NAME_PATTERN)


def is_plain_name(name: str) -> bool:
    """Whether NAME is safe as part of a file name and a state's name."""
    return _PLAIN_NAME.fullmatch(name) is not None and ".." not in name


def check_plain_name(name: str) -> str:
    """NAME itself; ValueError (the rule) when it is not plain (a pydantic validator)."""
    if not is_plain_name(name):
        raise ValueError(PLAIN_NAME_RULE)
    return name
