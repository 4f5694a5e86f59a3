"""`make_plan`: desired (config) x recorded (state) x observed (server) -> Plan. Pure.

No I/O, no clock, no environment: the same inputs give the same Plan whatever the order
of the mappings (every name is visited in sorted order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from planner.api.models import Deployment
from planner.command_lines import suggested_command
from planner.config.desired import DesiredDeployment
from planner.plan.changes import build_create, build_delete, build_replace, replace_first
from planner.plan.collisions import (
    Holder,
    RecordedHolders,
    name_holder,
    taken_by_recorded,
    taken_by_replace,
)
from planner.plan.drift import deployment_drift
from planner.plan.elsewhere import not_managed_elsewhere, owned_elsewhere_problem
from planner.plan.health import RevisionHealth, resubmitted, rollout_of
from planner.plan.holds import gone_warning, held_entry, held_moves, hold_problem
from planner.plan.model import (
    Action,
    Change,
    Drift,
    HeldDeployment,
    Plan,
    PlanProblem,
    PlanWarning,
    Recovered,
    Rollout,
    Unmanaged,
    summarize,
)
from planner.plan.moves import (
    find_moves,
    moved_inputs,
    unrecorded_found,
    with_deposed_notes,
    with_moves,
)
from planner.plan.options import PlanOptions as PlanOptions  # re-exported: callers plan with it
from planner.plan.options import check_option_names, record_command, selected_names
from planner.plan.recovery import split_recovered
from planner.plan.update import SeenParts, build_update, unchanged
from planner.state.document import IntentOp, PendingIntent, iso_utc
from planner.state.records import RecordedDeployment


@dataclass
class _Outcome:
    changes: list[Change] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    recovered: list[Recovered] = field(default_factory=list)
    errors: list[PlanProblem] = field(default_factory=list)
    warnings: list[PlanWarning] = field(default_factory=list)
    rollouts: list[Rollout] = field(default_factory=list)
    held: list[HeldDeployment] = field(default_factory=list)
    seen: SeenParts = field(default_factory=dict)  # of the no-op comparisons


class _Subject(NamedTuple):  # a tuple: one made per deployment, cheaply
    name: str
    desired: DesiredDeployment | None
    recorded: RecordedDeployment | None
    observed: Deployment | None
    intents: tuple[PendingIntent, ...] = ()
    health: RevisionHealth | None = None
    holder: Holder | None = None  # who else holds the remote name it would be created under


def make_plan(
    desired: Mapping[str, DesiredDeployment],
    recorded: Mapping[str, RecordedDeployment],
    observed: Mapping[str, Deployment | None],
    *,
    options: PlanOptions | None = None,
    digest_key: bytes,
    unmanaged_existing: Mapping[str, str] | None = None,
    intents: Sequence[PendingIntent] = (),
    health: Mapping[str, RevisionHealth] | None = None,
    unmanaged: Sequence[Deployment] = (),
    managed_elsewhere: Mapping[str, str] | None = None,
) -> Plan:
    """The plan that converges the selected deployments to the config.

    `observed` holds the live deployment of each recorded name (None: deleted outside);
    `unmanaged_existing` maps desired addresses to the id of the deployment no state here
    records that holds their remote name: not in the state, or whose recorded deployment
    is gone, or renamed by the config (a plan error: never created twice);
    `intents` are the state's journal: what they explain is recovered, not drift;
    `health` holds the recorded names whose latest revision is not the active one;
    `unmanaged` the workspace's deployments no state manages (listed, never planned);
    `managed_elsewhere` maps the ids other states of the config record to those states
    (never listed as unmanaged; a create that finds one is an error naming its owner).
    A recorded address renamed in the config (same remote name and source) is planned
    under its new address, its change carrying `moved_from` (planner.plan.moves). A
    change that would create under a remote name another deployment holds is an error
    (planner.plan.collisions). A record a rollback holds is listed in `held`, never
    planned; what would change it anyway is an error (planner.plan.holds).
    """
    opts = options or PlanOptions()
    healths, owners = health or {}, managed_elsewhere or {}
    moving = not (opts.destroy or opts.refresh_only)
    moves = find_moves(desired, recorded, observed) if moving else {}
    check_option_names(desired, set(recorded) | set(moves), opts)
    moves, frozen = held_moves(moves, recorded)  # a held deployment does not move
    moved_to = {old: new for new, old in frozen.items()}
    recorded, observed, intents = moved_inputs(moves, recorded, observed, intents)
    existing = unrecorded_found(unmanaged_existing or {}, recorded)
    holders = RecordedHolders(recorded, observed, desired)
    out = _Outcome()
    journal: dict[str, list[PendingIntent]] = {}  # each name's intents, in journal order
    for intent in intents:
        journal.setdefault(intent.name, []).append(intent)
    # the new address of a held deployment is planned as that deployment (its error names
    # both addresses), whichever of the two --only or --exclude selected
    for name in sorted({frozen.get(n, n) for n in selected_names(desired, recorded, opts)}):
        record = recorded.get(name)
        if record is not None and record.held is not None:
            wanted = desired.get(moved_to.get(name, name))
            intents_of = tuple(journal.get(name, ()))
            held = _Subject(name, wanted, record, observed.get(name), intents_of)
            plan_held(out, held, opts, digest_key, moved_to.get(name))
            continue
        live = observed.get(name)
        found = existing.get(name)
        wanted = desired.get(name)
        holder = name_holder(
            name, wanted, live, holders, (found, owners.get(found)) if found else None
        )
        subject = _Subject(
            name,
            wanted,
            recorded.get(name),
            live,
            tuple(journal.get(name, ())),
            healths.get(name),
            holder,
        )
        plan_deployment(out, subject, opts, digest_key)
    changes = sorted(with_deposed_notes(with_moves(out.changes, moves)), key=lambda c: c.name)
    return Plan(
        mode=opts.mode,
        summary=summarize(changes, held=len(out.held)),
        changes=changes,
        drift=sorted(out.drift, key=lambda d: (d.name, d.path or "")),
        recovered=sorted(out.recovered, key=lambda r: (r.name, r.operation)),
        errors=sorted(out.errors, key=lambda e: (e.name, e.path or "", e.message)),
        warnings=out.warnings,
        rollouts=sorted(out.rollouts, key=lambda r: r.name),
        unmanaged=unmanaged_entries(not_managed_elsewhere(unmanaged, owners), opts.command_args),
        held=out.held,
        record_command=record_command(opts, out.drift),
        partial=bool(opts.only or opts.exclude),
        only=sorted(opts.only),
        exclude=sorted(opts.exclude),
    )


def unmanaged_entries(deployments: Sequence[Deployment], args: tuple[str, ...]) -> list[Unmanaged]:
    """Each deployment no state manages, with the command that adopts it."""
    return [
        Unmanaged(
            name=d.name,
            id=d.id,
            created_at=iso_utc(d.created_at),
            import_command=suggested_command("import", d.name, d.id, command_args=args),
        )
        for d in sorted(deployments, key=lambda d: (d.name, d.id))
    ]


def plan_deployment(out: _Outcome, subject: _Subject, options: PlanOptions, key: bytes) -> None:
    """Add the drift, change and errors of one deployment to `out`."""
    desired, recorded, observed = subject.desired, subject.recorded, subject.observed
    if _is_update(subject, options) and (same := _unchanged(subject, key, out.seen)) is not None:
        out.changes.append(with_health(out, subject, same))  # no drift, nothing to send
        return
    ignore = desired.lifecycle.ignore_changes if desired is not None else ()
    drift = []
    if recorded is not None:
        drift = deployment_drift(recorded, observed, ignore_changes=ignore, digest_key=key)
        drift, recovered = split_recovered(drift, subject.intents, observed, key)
        out.drift += drift
        out.recovered += recovered
    if options.refresh_only:
        return
    if recorded is None:
        _plan_new(out, subject, key, options.command_args)
    elif observed is None:
        _plan_gone(out, subject, key, options)
    elif desired is None or options.destroy:
        _protect(out, subject, "deleted")
        out.changes.append(build_delete(recorded, observed))
    elif subject.name in options.replace:
        _protect(out, subject, "replaced")
        change, problems = replace_first(
            build_replace(desired, recorded, observed, key), desired, observed
        )
        if subject.holder is not None:  # its create half would collide: nothing is deleted
            args, holder = options.command_args, subject.holder
            problems = [taken_by_replace(subject.name, desired, observed, holder, args)]
        if not problems:  # else a "deleted, then created again" line would contradict it
            out.changes.append(change)
        out.errors += problems
    else:
        drifted = {d.path for d in drift if d.path is not None}
        result = build_update(
            desired,
            recorded,
            observed,
            key=key,
            drifted=drifted,
            holder=subject.holder,
            command_args=options.command_args,
        )
        out.changes.append(with_health(out, subject, result.change))
        out.errors += result.errors
        out.warnings += result.warnings


def plan_held(
    out: _Outcome, subject: _Subject, options: PlanOptions, key: bytes, moved_to: str | None
) -> None:
    """A deployment a rollback holds: listed with what its config would change, nothing
    planned; what would delete, replace or move it is an error naming `planner release`.
    SUBJECT's desired side is the config's table of it (under MOVED_TO when renamed).
    Its drift (live vs what the state records, which a rollback sets to what it
    redeployed) is reported as any drift is: a hold stops the planner acting, not seeing."""
    name, recorded, args = subject.name, subject.recorded, options.command_args
    assert recorded is not None and recorded.held is not None
    hold, desired, observed = recorded.held, subject.desired, subject.observed
    ignore = desired.lifecycle.ignore_changes if desired is not None else ()
    drift = deployment_drift(recorded, observed, ignore_changes=ignore, digest_key=key)
    drift, recovered = split_recovered(drift, subject.intents, observed, key)
    out.drift += drift
    out.recovered += recovered
    drifted = {d.path for d in drift if d.path is not None}
    out.held.append(held_entry(recorded, hold, desired, observed, key, args, drifted))
    if subject.observed is None:
        out.warnings.append(gone_warning(name, hold, args))
    if options.refresh_only:
        return
    if options.destroy:
        out.errors.append(hold_problem(name, hold, "destroyed", args))
    elif moved_to is not None:
        keep = f"keep its address [deployments.{name}] until it is released, "
        out.errors.append(hold_problem(name, hold, f"moved to {moved_to}", args, instead=keep))
    elif subject.desired is None:
        back = f"put [deployments.{name}] back in the config, "
        out.errors.append(hold_problem(name, hold, "deleted", args, instead=back))
    elif name in options.replace:
        out.errors.append(hold_problem(name, hold, "replaced (--replace)", args))


def _is_update(subject: _Subject, options: PlanOptions) -> bool:
    """Whether SUBJECT is planned by comparing it with its config (`build_update`)."""
    present = all(
        side is not None for side in (subject.desired, subject.recorded, subject.observed)
    )
    modes = options.refresh_only or options.destroy
    return present and not modes and subject.name not in options.replace


def _unchanged(subject: _Subject, key: bytes, seen: SeenParts) -> Change | None:
    assert subject.desired and subject.recorded and subject.observed
    return unchanged(subject.desired, subject.recorded, subject.observed, key, seen)


def with_health(out: _Outcome, subject: _Subject, change: Change) -> Change:
    """A rollout in progress is listed (nothing to do); a latest revision that ended
    without becoming active makes the change a new revision re-sending the config."""
    health = subject.health
    if health is None or subject.desired is None or subject.observed is None:
        return change
    if health.is_in_progress:
        out.rollouts.append(rollout_of(subject.name, health))
        return change
    change = resubmitted(change, subject.desired, subject.observed, health)
    if any(i.op == IntentOp.UPDATE for i in subject.intents):
        # the failed revision is the one an interrupted apply submitted, not an outside one
        change = change.model_copy(
            update={"reason": f"{change.reason} (submitted by an interrupted apply)"}
        )
    return change


def _plan_new(out: _Outcome, subject: _Subject, key: bytes, command_args: tuple[str, ...]) -> None:
    assert subject.desired is not None  # a name not in the state comes from the config
    holder = subject.holder
    if holder is None:
        out.changes.append(build_create(subject.desired, key, []))
        return
    if holder.address is not None:
        out.errors.append(taken_by_recorded(subject.desired, holder, command_args))
        return
    remote, existing_id = subject.desired.api_name, holder.id
    if holder.owner is not None:
        out.errors.append(owned_elsewhere_problem(subject.name, existing_id, holder.owner, remote))
        return
    command = suggested_command("import", subject.name, existing_id, command_args=command_args)
    out.errors.append(
        PlanProblem(
            name=subject.name,
            message=f"{remote} already exists (id {existing_id}) but is not in the state",
            hint=f"`{command}` adopts it; or rename the deployment in the config",
        )
    )


def _plan_gone(out: _Outcome, subject: _Subject, key: bytes, options: PlanOptions) -> None:
    """A recorded deployment deleted outside the planner: create it again if still wanted.

    If another deployment of that name exists now (re-created outside the planner), creating
    would duplicate it: that is an error naming the way to adopt it instead.
    """
    destroy, holder = options.destroy, subject.holder
    deleted_by_us = any(i.op == IntentOp.DELETE for i in subject.intents)
    note = "deleted by an interrupted apply" if deleted_by_us else "deleted outside the planner"
    if subject.desired is not None and not destroy and holder is not None:
        if holder.address is not None:
            out.errors.append(taken_by_recorded(subject.desired, holder, options.command_args))
            return
        existing_id = holder.id
        if holder.owner is not None:
            out.errors.append(owned_elsewhere_problem(subject.name, existing_id, holder.owner))
            return
        args = options.command_args
        forget = suggested_command("state rm", subject.name, command_args=args)
        adopt = suggested_command("import", subject.name, existing_id, command_args=args)
        command = f"{forget} && {adopt}"
        out.errors.append(
            PlanProblem(
                name=subject.name,
                message=_namesake_message(subject.name, existing_id, deleted_by_us),
                hint=f"`{command}` adopts the new one; or rename the deployment in the config",
            )
        )
        return
    if subject.desired is not None and not destroy:
        change = build_create(subject.desired, key, [f"{note}: will be created again"])
        out.changes.append(change.model_copy(update={"gone": True}))
        return
    assert subject.recorded is not None
    out.changes.append(
        Change(
            name=subject.name,
            action=Action.NO_OP,
            deployment_id=subject.recorded.id,
            notes=[f"{note}: it will be forgotten from the state"],
            gone=True,
        )
    )


def _namesake_message(name: str, existing_id: str, deleted_by_us: bool) -> str:
    """Who deleted the recorded deployment: a journalled delete of a name the config still
    wants was a replace the interrupted apply began, so the namesake is most likely the
    replacement it created and never recorded, not something made outside the planner."""
    if deleted_by_us:
        return (
            f"{name} was being replaced by an interrupted apply: the old deployment is gone "
            f"and {existing_id}, most likely the replacement it created, was never recorded"
        )
    return (
        f"{name} was deleted outside the planner and a deployment of that name exists again "
        f"(id {existing_id}), not the one in the state"
    )


def _protect(out: _Outcome, subject: _Subject, verb: str) -> None:
    """A protected deployment must not be deleted or replaced: protected by the config,
    or, once its table left the config, by the protection recorded when last applied."""
    name, desired, recorded = subject.name, subject.desired, subject.recorded
    if desired is not None:
        if not desired.lifecycle.protect:
            return
        hint = f"set protect = false in [deployments.{name}.lifecycle] first"
    elif recorded is not None and recorded.protect:
        hint = (
            f"it was protected when last applied: put [deployments.{name}] back with "
            f"lifecycle.protect = false, apply, then remove it"
        )
    else:
        return
    out.errors.append(
        PlanProblem(
            name=name,
            message=f"{name} is protected (lifecycle.protect) and would be {verb}",
            hint=hint,
        )
    )
