"""The operation log: small changes appended beside a state between two versioned writes.

An apply records every operation as it completes, but rewriting the whole state each
time costs O(N) per operation. Instead each commit group appends one small entry (a
`Group`) against the version it builds on (its base: lineage and serial); reading the
state is the base version plus a replay of its log; the apply's last step compacts the
log into one normal versioned write. Every backend keeps the log its own way (a JSON-lines
file beside a state file, rows in PostgreSQL, a list in memory); the rules live here once.

Invariants:
- a delta is one of `{"record": RecordedDeployment}`, `{"forget": name}`,
  `{"intent": PendingIntent}`, `{"clear": intent id}`: only what the state itself holds,
  so secrets appear as keyed digests only (replay re-checks every record);
- replay is idempotent: replaying a group twice leaves the document as replaying it once;
- only groups whose base is the current version are replayed: a log left behind by a
  crash after the compacting write (its base is older) is ignored, then removed;
- appending is compare-and-swap: a group built on a base that is no longer the current
  version is refused, like a stale write;
- a replayed document keeps the base's serial (the serial moves on versioned writes
  only: once per apply, at its compaction) and gets the checksum of what it now holds.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from planner.errors import StateError
from planner.state.document import (
    PendingIntent,
    StateDocument,
    check_recorded,
    checksum_of,
)
from planner.state.records import RecordedDeployment

Delta = dict[str, Any]

logger = logging.getLogger("planner.state")


@dataclass(frozen=True)
class Group:
    """One commit group: the deltas appended at once against the base (LINEAGE, BASE)."""

    lineage: str
    base: int
    deltas: list[Delta]

    def line(self) -> str:
        """The group as one JSON line (newline-terminated: a line without it is torn)."""
        payload = {"lineage": self.lineage, "base": self.base, "deltas": self.deltas}
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False) + "\n"


def group_of(doc: StateDocument, deltas: list[Delta]) -> Group:
    """The group of DELTAS made on DOC, whose serial is the version they build on."""
    return Group(doc.lineage, doc.serial, deltas)


@dataclass(frozen=True)
class ParsedLog:
    """A log's groups; `kept` bytes of complete lines hold them, `torn` bytes after those
    were ignored (a write that did not finish, or garbage a crash left)."""

    groups: list[Group]
    kept: int
    torn: int


def read_log(data: bytes, *, source: str) -> ParsedLog:
    """The groups of a JSON-lines log. Its tail (text after the last newline, and any
    lines after the last good one that do not parse, whatever their bytes: a torn UTF-8
    character, NULs, garbage) is ignored with a warning; a damaged line with a good one
    after it cannot come from a crash: a StateError naming SOURCE and the line."""
    groups: list[Group] = []
    kept = position = 0
    damaged: int | None = None
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        position += len(line) + 1
        try:
            group = parse_group(line.decode("utf-8"))
        except (ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError
            damaged = damaged or number
            continue
        if damaged is not None:
            raise damaged_log_error(source, damaged)
        groups.append(group)
        kept = position
    if len(data) > kept:
        logger.warning(
            "Warning: operation log %s: ignored %d byte(s) after its last complete record "
            "(a write that did not finish); the next write cuts them off",
            source,
            len(data) - kept,
        )
    return ParsedLog(groups, kept, len(data) - kept)


def parse_lines(text: str, *, source: str) -> list[Group]:
    """The groups of a JSON-lines log held as text (see `read_log`)."""
    return read_log(text.encode("utf-8"), source=source).groups


def damaged_log_error(source: str, line: int) -> StateError:
    return StateError(
        f"operation log {source} is damaged (line {line}), and complete records follow it",
        hint="keep the file: it holds the operations recorded since the last state version "
        "(the other lines are intact); repair that line or restore the log from a copy",
    )


def parse_group(text: str) -> Group:
    raw = json.loads(text)
    deltas = raw["deltas"]
    if not isinstance(deltas, list) or not all(isinstance(d, dict) for d in deltas):
        raise TypeError("deltas must be a list of objects")
    return Group(str(raw["lineage"]), int(raw["base"]), deltas)


def replay(doc: StateDocument, groups: list[Group]) -> StateDocument:
    """DOC with the groups built on it applied in order (others ignored), re-checksummed
    when any was; `doc.replayed` counts them."""
    mine = [g for g in groups if g.lineage == doc.lineage and g.base == doc.serial]
    if not mine:
        return doc
    pending = {entry.id: entry for entry in doc.pending}  # by id: a clear is O(1)
    try:
        for group in mine:
            for delta in group.deltas:
                apply_delta(doc, pending, delta)
    except (ValidationError, ValueError, KeyError, TypeError) as error:
        raise StateError(
            f"the operation log of state version {doc.serial} holds an invalid entry",
            details=[type(error).__name__],  # never the values: they could be sensitive
        ) from None
    doc.pending = list(pending.values())  # a new list: the document recounts its names
    doc.checksum = checksum_of(doc)
    doc.mark_replayed(len(mine))
    return doc


def apply_delta(doc: StateDocument, pending: dict[str, PendingIntent], delta: Delta) -> None:
    """Apply one delta (intents to PENDING, by id); applying it again changes nothing."""
    (kind, value), *rest = delta.items()
    if rest:
        raise ValueError("a delta has exactly one key")
    if kind == "record":
        recorded = RecordedDeployment.model_validate(value)
        check_recorded(recorded.name, recorded)  # digests only, as in a versioned write
        doc.deployments[recorded.name] = recorded
    elif kind == "forget":
        doc.deployments.pop(str(value), None)
    elif kind == "intent":
        intent = PendingIntent.model_validate(value)
        pending.setdefault(intent.id, intent)
    elif kind == "clear":
        pending.pop(str(value), None)
    else:
        raise ValueError(f"unknown delta {kind!r}")


def check_base(current: StateDocument | None, group: Group, location: str) -> None:
    """Refuse GROUP unless its base is CURRENT (the stored version): compare-and-swap."""
    if current is not None and (current.lineage, current.serial) == (group.lineage, group.base):
        return
    raise base_moved_error(location, None if current is None else current.serial, group.base)


def base_moved_error(location: str, stored: int | None, base: int) -> StateError:
    return StateError(
        f"state {location} moved since this run read it (serial "
        f"{'-' if stored is None else stored} stored, operations recorded against {base}): "
        "another writer got there first",
        hint="nothing more was recorded; run the command again, so it plans from the current state",
    )
