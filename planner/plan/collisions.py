"""Name collisions: a change that creates a deployment needs its remote name free.

Three changes create: a create, the re-creation of a deployment deleted outside the
planner, and the create half of a replace that gives the deployment a new remote name
(with or without create_before_destroy). Whoever holds that name live makes the change a
plan error, in plan and apply alike, before anything is sent: a deployment this state
records under another address (`recorded_holders`), one another state manages, or one
no state manages (both found by name: `Observed.unmanaged_existing`). A replace that
keeps its remote name frees the name by its own delete and is never refused here.
Pure: the holders come in as data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from planner.api.models import Deployment
from planner.command_lines import suggested_command
from planner.config.desired import DesiredDeployment
from planner.plan.changes import show
from planner.plan.model import PlanProblem
from planner.state.moves import successor_of
from planner.state.records import RecordedDeployment


class Holder(NamedTuple):
    """The live deployment holding the remote name a change would create."""

    id: str
    address: str | None = None  # this state records it under ADDRESS
    owner: str | None = None  # another state records it (that state's name)
    source: object = None  # the source its record says (recorded holders)
    kept: bool = False  # the config still declares ADDRESS


class RecordedHolders:
    """Remote name -> the RECORDED deployment holding it, live (OBSERVED by address),
    found on first use: a plan that creates and renames nothing never looks (a fleet's
    map costs tens of milliseconds)."""

    def __init__(
        self,
        recorded: Mapping[str, RecordedDeployment],
        observed: Mapping[str, Deployment | None],
        config: Mapping[str, DesiredDeployment],
    ) -> None:
        self._inputs = recorded, observed, config
        self._by_name: dict[str, Holder] | None = None

    def get(self, remote: str) -> Holder | None:
        if self._by_name is None:
            self._by_name = self._holders()
        return self._by_name.get(remote)

    def _holders(self) -> dict[str, Holder]:
        recorded, observed, config = self._inputs
        holders: dict[str, Holder] = {}
        for address, record in sorted(recorded.items()):
            live = observed.get(address)
            if live is not None and live.name not in holders:
                source, kept = record.managed.get("source"), address in config
                holders[live.name] = Holder(live.id, address, source=source, kept=kept)
        return holders


def name_holder(
    address: str,
    desired: DesiredDeployment | None,
    live: Deployment | None,
    recorded: RecordedHolders,
    found: tuple[str, str | None] | None,
) -> Holder | None:
    """Who holds the remote name ADDRESS would be created under (None: nobody else).

    LIVE is ADDRESS's own deployment (holding its name is no collision), RECORDED the
    holders this state records, FOUND a holder found by name: (id, its owning state)."""
    if desired is None or (live is not None and live.name == desired.api_name):
        return None
    holder = recorded.get(desired.api_name)
    if holder is not None and holder.address != address:
        return holder
    if found is not None:
        return Holder(found[0], owner=found[1])
    return None


def holder_text(remote: str, holder: Holder) -> str:
    """Who HOLDER is, after the name REMOTE it holds."""
    if holder.address is not None:
        return f"{remote} is the remote name of {holder.address} (id {holder.id}) in this state"
    if holder.owner is not None:
        owned = f"and is managed by the state {holder.owner}"
    else:
        owned = "but is not in the state"
    return f"{remote} already exists (id {holder.id}) {owned}"


def taken_by_recorded(
    desired: DesiredDeployment, holder: Holder, command_args: Sequence[str] = ()
) -> PlanProblem:
    """DESIRED would be created under the remote name of HOLDER, a deployment this state
    records under another address (never a move: `planner.plan.moves` took those).
    COMMAND_ARGS: the options a suggested command repeats (`suggested_command`)."""
    address, old, remote = desired.name, holder.address, desired.api_name
    assert old is not None
    same_source = holder.source == str(desired.source)
    if successor_of(old) is not None:
        why = ", the old deployment a create-before-destroy replace keeps until it is deleted"
    elif holder.kept:
        why = ", which the config keeps"
    else:
        why = ", which this plan deletes" + ("" if same_source else " (another source: not a move)")
    free = f"give [deployments.{address}] a remote name no deployment holds"
    if holder.kept:
        hint = free
    elif same_source:
        move = suggested_command("state mv", old, address, command_args=command_args)
        hint = f"`{move}` records that deployment as {address}"
    elif successor_of(old) is not None:
        hint = f"{free}, or add it once {old} is deleted"
    else:
        hint = (
            f"remove {old} in one apply and add {address} in the next, or keep {old}'s "
            "source so that the rename is a move"
        )
    return PlanProblem(
        name=address,
        message=f"{address} would be created as {remote}, the remote name of {old} "
        f"(id {holder.id}){why}",
        hint=hint,
    )


def taken_by_replace(
    address: str,
    desired: DesiredDeployment,
    live: Deployment,
    holder: Holder,
    command_args: Sequence[str] = (),
) -> PlanProblem:
    """The replace of ADDRESS would delete LIVE (or create first) and then create under a
    remote name HOLDER holds: refused before anything is deleted."""
    remote = desired.api_name
    return PlanProblem(
        name=address,
        path="name",
        message=f"{address} cannot be replaced as {remote!r}: {holder_text(remote, holder)}",
        hint=f"{_free(address, holder, command_args)}, or set name back to {show(live.name)}",
    )


def _free(address: str, holder: Holder, command_args: Sequence[str]) -> str:
    """What makes ADDRESS's new remote name work: another name, or, when HOLDER is the
    old deployment ADDRESS's own create-before-destroy replace kept, going back to it."""
    free = f"give [deployments.{address}] a remote name no deployment holds"
    if holder.address is None or successor_of(holder.address) != address:
        return free
    forget = suggested_command("state rm", address, command_args=command_args)
    return (
        f"{free}; to go back to {holder.address}, `{forget}` (its new deployment is then "
        "not managed) and the plan moves the old one back"
    )


def replace_way_out(
    desired: DesiredDeployment,
    live: Deployment,
    holder: Holder | None,
    command_args: Sequence[str] = (),
) -> str:
    """How an immutable change of DESIRED (LIVE now) can be made, before `; or <keep the
    old value>`: `--replace`, said as what it does, or, when the new remote name is taken
    (HOLDER), what would work instead."""
    name, remote = desired.name, desired.api_name
    if holder is not None:
        taken = holder_text(remote, holder)
        return f"{taken}, so a replace could not create it: {_free(name, holder, command_args)}"
    if not desired.lifecycle.create_before_destroy:
        return f"to delete and re-create {name} (it gets a new id), plan with --replace {name}"
    if remote != live.name:
        return (
            f"to create {remote!r} first, then delete {live.name!r} (lifecycle."
            f"create_before_destroy; it gets a new id), plan with --replace {name}"
        )
    return (
        f"to re-create {name} (it gets a new id), give it a new remote name too "
        f"(create_before_destroy creates the new one first) and plan with --replace {name}"
    )
