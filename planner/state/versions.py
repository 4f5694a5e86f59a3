"""Versions of a state: what `history` lists, and the moves built on them (rollback, push).

Every write makes a version (its serial, checksum, time and writer); the backends keep
as many as they can (see `StateBackend`). Rollback and push are plain writes, so they
pass the same compare-and-swap on the serial as any other write.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from planner.errors import StateError
from planner.state.document import StateDocument

if TYPE_CHECKING:  # the protocol module imports this one
    from planner.state.backend import StateBackend


class StateVersion(BaseModel):
    """One kept version of a state (a row of `planner state history`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serial: int
    lineage: str
    checksum: str
    created: str
    written_by: str | None = None
    deployments: int


def version_of(doc: StateDocument, *, created: str, written_by: str | None) -> StateVersion:
    return StateVersion(
        serial=doc.serial,
        lineage=doc.lineage,
        checksum=doc.checksum or "",
        created=created,
        written_by=written_by,
        deployments=len(doc.deployments),
    )


def missing_version_error(location: str, serial: int, kept: Iterable[int]) -> StateError:
    listed = ", ".join(str(entry) for entry in kept) or "none"
    return StateError(
        f"version {serial} of state {location} is not kept",
        details=[f"versions kept: {listed}"],
        hint="`planner state history` lists them; a state file keeps the current version "
        "and the one before it (.backup), a PostgreSQL state every version",
    )


def rollback(backend: StateBackend, serial: int) -> StateDocument:
    """Write version SERIAL back as a new version (the history keeps what it replaces)."""
    current = _require(backend)
    old = backend.read_version(serial)
    again = old.model_copy(update={"serial": current.serial})
    return backend.write(again, force=old.lineage != current.lineage)


def push(backend: StateBackend, doc: StateDocument, *, force: bool = False) -> StateDocument | None:
    """Upload DOC as the next version; None when the store holds it already.

    Refused (unless FORCE) over a state of another lineage, an older serial, or the same
    serial with other content: pushing it would lose what the store has."""
    current = backend.read()
    if current is not None and current.checksum == doc.checksum:
        return None
    if current is not None and not force:
        _check_pushable(current, doc, backend.location)
    return backend.write(doc.model_copy(deep=True), force=force)


def _check_pushable(current: StateDocument, doc: StateDocument, location: str) -> None:
    stored = f"stored: lineage {current.lineage}, serial {current.serial}"
    pushed = f"pushed: lineage {doc.lineage}, serial {doc.serial}"
    if current.lineage != doc.lineage:
        problem = "it is another state (another lineage)"
    elif doc.serial < current.serial:
        problem = "it is older than the stored one"
    elif doc.serial == current.serial:
        problem = "it has the stored serial but other content (the two have diverged)"
    else:
        return
    raise StateError(
        f"refusing to push over state {location}: {problem}",
        details=[stored, pushed],
        hint="pull the stored state first and compare; --force pushes anyway (the "
        "stored version stays in the history)",
    )


def _require(backend: StateBackend) -> StateDocument:
    current = backend.read()
    if current is None:
        raise StateError(f"no state at {backend.location}: nothing to roll back")
    return current
