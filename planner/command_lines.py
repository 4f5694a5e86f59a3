"""The one builder of the `planner ...` command lines the planner suggests (import hints,
`state rm`, `unlock`, `apply --refresh-only`, `plan -c FILE`, ...), in every output,
saved plan and page, and of the `terraform state rm` that hands a deployment over.

A suggestion repeats the options the user gave (`-c FILE`, `--env`, `--state`), so it
acts on the same target when pasted; every word is shell-quoted, and a URL's password is
left out (libpq then reads PGPASSWORD or ~/.pgpass): the command line is printed, logged,
posted in pull requests and saved in plan files, a password never.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from planner.secrets import url_has_password, url_without_password


def suggested_command(command: str, *operands: str, command_args: Sequence[str] = ()) -> str:
    """`planner COMMAND [COMMAND_ARGS] OPERANDS...` as the user should type it."""
    words = ["planner", *command.split(), *command_args, *operands]
    return shlex.join(spoken(word) for word in words)


def password_note(*words: str) -> str:
    """What follows a suggested command whose WORDS had a URL's password left out (""
    when none had): where the password comes from instead."""
    if any(spoken(word) != word for word in words):
        return f" (the state's password is left out: {PASSWORD_SOURCES})"
    return ""


PASSWORD_SOURCES = "set PLANNER_STATE to the full URL, or PGPASSWORD, or use ~/.pgpass"


def spoken(word: str) -> str:
    """WORD as a suggested command line may print it: a URL without its password."""
    if "://" in word and url_has_password(word):
        return url_without_password(word)
    return word


def terraform_state_rm(address: str) -> str:
    """`terraform state rm 'ADDRESS'`: the address always in single quotes (its brackets
    and double quotes would be the shell's otherwise), a single quote in it closed,
    escaped and reopened."""
    return "terraform state rm '" + address.replace("'", "'\\''") + "'"
