"""What a `plan --out` path that is not a saved plan is, and the hint that fits it.

`plan --out` never replaces anything but an earlier saved plan
(`planner.plan.saved.plan_file_target`). When it refuses, the hint says what the path
is: a folder (name a file in it), a device or pipe (a plan is saved to a file apply can
read back), one of the files the command works with (the config, the state and its
siblings, the local control plane's database: named by the caller), any SQLite database
or planner state; only a file of no known kind gets "delete it if you mean to replace
it".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planner.files import non_regular_kind

FOLDER = "a folder"
SQLITE_HEADER = b"SQLite format 3\x00"
STATE_KEYS = frozenset({"format_version", "lineage", "serial", "endpoint", "deployments"})
_DEVICE = ", not a file `planner apply` can read back"


def existing_kind(target: Path, known: Mapping[Path, str]) -> str | None:
    """What TARGET (a real path that exists) is, when that is known without parsing it:
    a folder, a device, a file of KNOWN (real path -> name), a SQLite database."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return None
    kind = non_regular_kind(mode)
    if kind == "a directory":
        return FOLDER
    if kind is not None:
        return kind + _DEVICE
    if target in known:
        return known[target]
    return "a SQLite database" if _starts_with(target, SQLITE_HEADER) else None


def is_state_shaped(data: Any) -> bool:
    """Whether parsed DATA is a planner state (the keys every state has)."""
    return isinstance(data, dict) and data.keys() >= STATE_KEYS


def out_hint(given: Path, kind: str | None) -> str:
    """The hint of a refused `--out GIVEN` that is KIND (None: a file of no known kind)."""
    if kind is None:
        return "choose another --out path (or delete the file if you mean to replace it)"
    if kind == FOLDER:
        return (
            f"it is a folder: give --out the path of a file in it, e.g. --out {given / 'plan.json'}"
        )
    if kind.endswith(_DEVICE):
        return f"it is {kind}: choose a file path for --out (without --out, nothing is saved)"
    return f"it is {kind}: choose another --out path (a saved plan is a file of its own)"


def _starts_with(path: Path, header: bytes) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(len(header)) == header
    except OSError:
        return False
