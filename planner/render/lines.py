"""What every plan view shows, before it is styled: ordered changes and diff lines.

Lists of named objects (containers, volumes, mounts, env, image_pull_secrets,
secret_references) are diffed by element `name`, so one changed sidecar image reads as
one line, not as a whole new list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.plan.changes import show
from planner.plan.model import (
    Action,
    Change,
    Drift,
    FieldChange,
    HeldDeployment,
    HeldLock,
    Plan,
    PolicyResult,
    Recovered,
    Rollout,
    Unmanaged,
)
from planner.plan.paths import flatten
from planner.secrets import SENSITIVE
from planner.state.document import IntentOp

_FIRST = (Action.DELETE, Action.REPLACE)

HEADLINES = {
    Action.CREATE: "will be created",
    Action.UPDATE: "will be updated in place",
    Action.NEW_REVISION: "will get a new revision",
    Action.DELETE: "will be deleted",
    Action.REPLACE: "will be replaced (deleted, then created again)",
    Action.NO_OP: "has no changes",
}


RECOVERED_TITLE = "Recovered from an interrupted apply"
_RECOVERED = {
    IntentOp.CREATE: "created but never recorded; {next} records it",
    IntentOp.UPDATE: "updated{paths} but never recorded; {next} records it",
    IntentOp.DELETE: "deleted but never recorded; {next} forgets it",
    IntentOp.REDEPLOY: "rolled back (an earlier revision redeployed) but never recorded; "
    "{next} records its hold",
}


def recovered_headline(recovered: Sequence[Recovered]) -> str:
    """`Recovered from an interrupted apply: api (ID), worker (ID)`: each deployment
    once, in order, with its id when known."""
    named = dict.fromkeys(
        f"{r.name} ({r.deployment_id})" if r.deployment_id else r.name for r in recovered
    )
    return f"{RECOVERED_TITLE}: {', '.join(named)}"


def recovered_text(recovered: Recovered, *, applying: bool = False) -> str:
    """What an interrupted apply did to one deployment and never recorded; APPLYING:
    said by the apply that records it now (else: by a plan, for the next apply)."""
    paths = f" ({', '.join(recovered.paths)})" if recovered.paths else ""
    after = "this apply" if applying else "the next apply"
    what = _RECOVERED[recovered.operation].format(paths=paths, next=after)
    return f"{recovered.name}: {what}"


POLICY_TITLE = "Policy: warnings (they change nothing; denials are errors above)"


def policy_warnings(plan: Plan) -> list[PolicyResult]:
    """The policy results a plan shows in its Policy section (denials are its errors)."""
    return [result for result in plan.policies if result.severity == "warn"]


def policy_text(result: PolicyResult) -> str:
    """`api: policy registry-only: images come from the company registry`."""
    return f"{result.deployment}: policy {result.policy}: {result.message}"


ROLLOUTS_TITLE = "Rollouts in progress (not converged yet; nothing to submit again)"
# What a plan can say of a deployment it finds in no state: the planner sees its own
# state, the other states of its config beside it and, in PostgreSQL, every state of the
# same schema; nothing else (not that no one manages it, nor that no one changes it).
UNRECORDED = "not recorded by this state; states this planner cannot see may manage it"
UNSEEN_STATES = (
    "another config's state, a state file elsewhere, another PostgreSQL schema or database"
)
UNMANAGED_TITLE = (
    f"{UNRECORDED[0].upper()}{UNRECORDED[1:]} (check before adopting one: add "
    "[deployments.<name>] to the config, then run its `planner import`; `planner import "
    "--all --generate-config FILE` lists them and asks before adopting them all)"
)


def rollout_text(rollout: Rollout) -> str:
    """`api: revision R is BUILDING (active revision: A)`."""
    active = rollout.active_revision_id or "none"
    return (
        f"{rollout.name}: revision {rollout.revision_id} is {rollout.status} "
        f"(active revision: {active})"
    )


def unmanaged_text(unmanaged: Unmanaged) -> str:
    """`by-hand (id X, created T): planner import by-hand X`."""
    return (
        f"{unmanaged.name} (id {unmanaged.id}, created {unmanaged.created_at}): "
        f"{unmanaged.import_command}"
    )


HELD_TITLE = "Held by a rollback (not planned: the config's changes wait until it is released)"


def held_text(held: HeldDeployment) -> str:
    """`api: held, rolled back to revision R since S by B; `planner release api` lifts
    the hold`."""
    return (
        f"{held.address}: held, rolled back to revision {held.revision} since {held.since} "
        f"by {held.by}; `{held.release_command}` lifts the hold"
    )


def held_changes_text(held: HeldDeployment) -> str:
    """What the config would change of a held deployment, in a line."""
    if held.removed:
        return "the config no longer declares it: it would be deleted once released"
    if not held.changes:
        return "the config would change nothing of it"
    count = len(held.changes)
    return f"the config would change {count} field{'' if count == 1 else 's'} once released:"


def held_lines(held: HeldDeployment, spelling: Spelling = SEED_SPELLING) -> list[Line]:
    """The diff lines of what the config would change of a held deployment."""
    lines = [line for field in held.changes for line in field_lines(field, Action.UPDATE)]
    if spelling is not SEED_SPELLING:
        lines = [spelled_line(line, spelling) for line in lines]
    return lines


def change_title(change: Change) -> str:
    """`api will be created`; a move `sales -> sales-agent (moved)`, followed by what else
    is planned for it (`will be updated in place`), if anything."""
    headline = HEADLINES[change.action]
    if change.create_before_destroy:
        headline = "will be replaced (created first, then the old one deleted)"
    if change.moved_from is None:
        return f"{change.name} {headline}"
    moved = f"{change.moved_from} -> {change.name} (moved)"
    return moved if change.action is Action.NO_OP else f"{moved}, {headline}"


ACTION_LABELS = {
    Action.CREATE: "create",
    Action.UPDATE: "update in place",
    Action.NEW_REVISION: "new revision",
    Action.DELETE: "delete",
    Action.REPLACE: "replace (delete, then create)",
    Action.NO_OP: "no changes",
}


def action_label(change: Change) -> str:
    """The action as a table cell reads it (`update in place`; a bare move: `move`)."""
    if change.moved_from is not None and change.action is Action.NO_OP:
        return "move"
    return ACTION_LABELS[change.action]


class Line(NamedTuple):  # a tuple: a plan of 30,000 creates shows 150,000 of them
    """One row of a diff: `sign` is `+`, `-`, `~` or ` ` (unchanged, verbose only)."""

    sign: str
    path: str
    before: Any = None
    after: Any = None
    note: str = ""


def ordered_changes(plan: Plan, *, verbose: bool = False) -> list[Change]:
    """Deletions and replacements first, then the rest by name; quiet no-ops (not moved)
    left out."""
    shown = [
        c
        for c in plan.changes
        if c.action is not Action.NO_OP or c.notes or c.moved_from or verbose
    ]
    first = [c for c in shown if c.action in _FIRST]
    return first + [c for c in shown if c.action not in _FIRST]


def change_lines(
    change: Change, *, verbose: bool = False, spelling: Spelling = SEED_SPELLING
) -> list[Line]:
    """The diff lines of CHANGE, in SPELLING's words (how the config wrote them)."""
    lines = [line for field in change.fields for line in field_lines(field, change.action)]
    if verbose:
        lines += unchanged_lines(change)
    if spelling is not SEED_SPELLING:
        lines = [spelled_line(line, spelling) for line in lines]
    return lines


def spelled_line(line: Line, spelling: Spelling) -> Line:
    """LINE with its path (and a `source` value) in SPELLING's words."""
    return line._replace(
        path=spelling.path(line.path),
        before=spelling.value(line.path, line.before),
        after=spelling.value(line.path, line.after),
    )


def field_lines(field: FieldChange, action: Action) -> list[Line]:
    note = field_note(field, action)
    if _is_named_list(field.before) and _is_named_list(field.after):
        return list(_element_lines(field.path, field.before or [], field.after or [], note))
    return [Line(_sign(field.before, field.after), field.path, field.before, field.after, note)]


def field_note(field: FieldChange, action: Action) -> str:
    if action in (Action.CREATE, Action.DELETE):
        return ""
    parts = [field.change_class.value]
    if field.before == SENSITIVE and field.after == SENSITIVE:
        parts.append("value changed")
    if field.drifted:
        parts.append("drifted")
    return ", ".join(parts)


def unchanged_lines(change: Change) -> list[Line]:
    """The managed fields that stay as they are (shown with --verbose)."""
    if change.action not in (Action.UPDATE, Action.NEW_REVISION, Action.REPLACE, Action.NO_OP):
        return []
    changed = {field.path for field in change.fields}
    view = {k: v for k, v in flatten(change.after).items() if k != "secrets"}
    view |= {f"secrets.{s['name']}": SENSITIVE for s in change.after.get("secrets", [])}
    return [
        Line(" ", path, value, value) for path, value in sorted(view.items()) if path not in changed
    ]


def _sign(before: Any, after: Any) -> str:
    if before is None:
        return "+"
    return "-" if after is None else "~"


def _is_named_list(value: Any) -> bool:
    if value is None:
        return True
    return isinstance(value, list) and all(isinstance(v, dict) and "name" in v for v in value)


def _element_lines(path: str, before: list[Any], after: list[Any], note: str) -> Iterator[Line]:
    old = {str(item["name"]): item for item in before}
    new = {str(item["name"]): item for item in after}
    order = list(new) + [name for name in old if name not in new]
    for name in order:
        label = f"{path}[{name}]"
        if name not in old:
            yield Line("+", label, None, new[name], note)
        elif name not in new:
            yield Line("-", label, old[name], None, note)
        elif old[name] != new[name]:
            yield from _member_lines(label, old[name], new[name], note)


def _member_lines(
    label: str, old: dict[str, Any], new: dict[str, Any], note: str
) -> Iterator[Line]:
    """The differing keys of one element; named lists inside (env, volumeMounts) recurse."""
    for key in sorted(set(old) | set(new)):
        was, now = old.get(key), new.get(key)
        if was == now:
            continue
        if was and now and _is_named_list(was) and _is_named_list(now):
            yield from _element_lines(f"{label}.{key}", was, now, note)
        else:
            yield Line(_sign(was, now), f"{label}.{key}", was, now, note)


def headline(change: Change) -> str:
    """`+ api will be created`: the action's symbol, the name, what happens to it."""
    return f"{change.action.symbol} {change_title(change)}"


def drift_line(drift: Drift, spelling: Spelling = SEED_SPELLING) -> str:
    """`api: source_config.cpu: 1 → 2`, or `api: deleted outside the planner (was id X)`
    (the path in SPELLING's words)."""
    if drift.path is None:
        return f"{drift.name}: deleted outside the planner (was id {drift.recorded})"
    return (
        f"{drift.name}: {spelling.path(drift.path)}: {drift_text(drift.recorded, drift.observed)}"
    )


def drift_text(recorded: Any, observed: Any) -> str:
    if recorded == SENSITIVE and observed == SENSITIVE:
        return "value changed"
    if recorded is None:
        return f"added: {show(observed)}"
    if observed is None:
        return f"{show(recorded)} → removed"
    return f"{show(recorded)} → {show(observed)}"


def lock_line(lock: HeldLock) -> str:
    """A plan made while a writer held the state lock: who, doing what, since when."""
    return (
        f"The state is locked by {lock.holder} ({lock.operation}) since {lock.since}: "
        "this plan read the state as that run had recorded it so far"
    )
