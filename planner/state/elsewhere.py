"""Managed elsewhere: which deployments the other states of a config record (so that a
plan of one environment never offers to adopt, or creates again, what another
environment manages). `planner.plan.elsewhere` is what the plan makes of them.

A file state's other states are the files beside it named after the same config stem
(`<stem>.state.json`, `<stem>.<env>.state.json`); a PostgreSQL state's are every other
state of its schema. One that cannot be read is passed over: it records nothing
this run can trust, and the plan of this state must not fail because of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from planner.errors import StateError
from planner.state.document import StateDocument

STATE_SUFFIX = ".state.json"

Reader = Callable[[], StateDocument | None]


def other_state_paths(path: Path, config_stem: str) -> list[Path]:
    """The state files beside PATH of the same config stem, PATH itself left out."""
    directory = path.parent
    if not directory.is_dir():
        return []
    found = [directory / f"{config_stem}{STATE_SUFFIX}"]
    found += sorted(directory.glob(f"{_escaped(config_stem)}.*{STATE_SUFFIX}"))
    return [p for p in found if p.is_file() and p.resolve() != path.resolve()]


def owned_by(states: Iterable[tuple[str, Reader]]) -> dict[str, str]:
    """Deployment id -> the name of the state recording it, for each (name, read) given."""
    owners: dict[str, str] = {}
    for owner, read in states:
        try:
            doc = read()
        except StateError:
            continue
        if doc is not None:
            for recorded in doc.deployments.values():
                owners.setdefault(recorded.id, owner)
    return owners


def _escaped(text: str) -> str:
    """TEXT with the glob characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
