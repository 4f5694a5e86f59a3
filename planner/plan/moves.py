"""Moves: a recorded address that left the config and a new address naming the same remote
deployment (the same remote `name` and source) are one deployment renamed, not a delete
and a create. Pure: the plan carries the move as `Change.moved_from`, apply re-keys the
record (`planner.state.moves`), nothing is sent for the move itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.model import Change
from planner.state.document import PendingIntent
from planner.state.moves import successor_of
from planner.state.records import RecordedDeployment

_Identity = tuple[str, Any]  # (remote name, source)


def find_moves(
    desired: Mapping[str, DesiredDeployment],
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Deployment | None] | None = None,
) -> dict[str, str]:
    """New address -> the recorded address it moves from.

    Only an unambiguous pair is a move: one address left the config, one new address
    names the same remote deployment with the same source. A recorded deployment's remote
    name is the one it has on the server (OBSERVED: address -> live) when it runs: the
    address says nothing of it once `state mv` or a create-before-destroy replace re-keyed
    the record (a deposed one too: a new address naming its deployment takes it back).
    """
    live = observed or {}
    left = _by_identity(
        ((_remote_name(r, live.get(a)), r.managed.get("source")), a)
        for a, r in recorded.items()
        if a not in desired
    )
    if not left:
        return {}
    new = _by_identity((_desired_identity(d), a) for a, d in desired.items() if a not in recorded)
    return {
        addresses[0]: left[identity][0]
        for identity, addresses in sorted(new.items())
        if len(addresses) == 1 and len(left.get(identity, ())) == 1
    }


def moved_inputs(
    moves: Mapping[str, str],
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Any],
    intents: Sequence[PendingIntent],
) -> tuple[dict[str, RecordedDeployment], dict[str, Any], Sequence[PendingIntent]]:
    """RECORDED, OBSERVED and the journal's INTENTS with each moved entry under its new
    address (apply carries the intents over with the record: `planner.state.moves`)."""
    records, live = dict(recorded), dict(observed)
    for new, old in moves.items():
        records[new] = records.pop(old).model_copy(update={"name": new})
        live[new] = live.pop(old, None)
    if not moves:
        return records, live, intents
    new_names = {old: new for new, old in moves.items()}
    carried = [
        i.model_copy(update={"name": new_names[i.name]}) if i.name in new_names else i
        for i in intents
    ]
    return records, live, carried


def unrecorded_found(
    existing: Mapping[str, str], recorded: Mapping[str, RecordedDeployment]
) -> dict[str, str]:
    """The names found remotely, less those found as the very deployment recorded under
    that name (a moved entry: looked up by its new address, it is the one it moves)."""
    return {
        name: found
        for name, found in existing.items()
        if name not in recorded or recorded[name].id != found
    }


def with_moves(changes: list[Change], moves: Mapping[str, str]) -> list[Change]:
    """CHANGES, each of a moved address carrying the address it moves from."""
    if not moves:
        return changes
    return [
        c.model_copy(update={"moved_from": moves[c.name]}) if c.name in moves else c
        for c in changes
    ]


def with_deposed_notes(changes: list[Change]) -> list[Change]:
    """CHANGES, each delete of a deposed record (`planner.state.moves`) saying whose old
    deployment it is and that apply deletes it only after that one's change succeeded."""
    return [_deposed_note(c) if successor_of(c.name) else c for c in changes]


def _deposed_note(change: Change) -> Change:
    successor = successor_of(change.name)
    note = (
        f"the old deployment of {successor}, kept by a create-before-destroy replace "
        f"until it is deleted; deleted after {successor}'s change succeeds, if it has one"
    )
    return change.model_copy(update={"notes": [*change.notes, note]})


def _by_identity(pairs: Any) -> dict[_Identity, list[str]]:
    grouped: dict[_Identity, list[str]] = defaultdict(list)
    for identity, address in pairs:
        grouped[identity].append(address)
    return grouped


def _remote_name(recorded: RecordedDeployment, live: Deployment | None) -> str:
    """The name RECORDED's deployment has on the server (LIVE), else the one its record
    says (the address it was created under, if the config did not name it)."""
    if live is not None:
        return live.name
    return str(recorded.managed.get("name") or recorded.name)


def _desired_identity(desired: DesiredDeployment) -> _Identity:
    return desired.api_name, str(desired.source)
