"""What the state records per managed deployment (contract between state and plan/apply)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from planner.pydantic_internals import set_given_names


class Hold(BaseModel):
    """A rollback's pin: plans and applies leave the deployment alone until `planner
    release` lifts it.

    `revision_id` is the revision rolled back TO (the one `rollback --to` names): the
    redeploy made a new revision of its source and revision config, which the record's
    `latest_revision_id` (and `active_revision_id`, once deployed) name. `since` is ISO
    8601 UTC (`iso_utc`); `by` is who set it, the state lock's `who` (`user@host`)."""

    model_config = ConfigDict(extra="forbid")

    revision_id: str
    since: str
    by: str


class RecordedDeployment(BaseModel):
    """One managed deployment as last applied.

    `managed` is the wire JSON of the fields the config set when last applied (the same
    shape as `DesiredDeployment.managed()`), without secrets; secrets are recorded only as
    keyed digests (`planner.secrets.secret_digest`), by name.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    id: str
    managed: dict[str, Any] = Field(default_factory=dict)
    secret_digests: dict[str, str] = Field(default_factory=dict)
    latest_revision_id: str | None = None
    active_revision_id: str | None = None
    updated_at: str | None = None
    # lifecycle.protect as last applied: removing a protected deployment's table from the
    # config must not delete it (it stays protected until applied with protect = false).
    protect: bool = False
    # set by `planner rollback`, lifted by `planner release`; left out of the JSON when
    # None, so a record without a hold is written byte for byte as before holds existed
    held: Hold | None = Field(default=None, exclude_if=lambda held: held is None)


def share_given_names(model: BaseModel) -> None:
    """Let MODEL share its set of given field names with the other models of its class
    given the same names (pydantic makes one set per instance: 728 bytes for 15 names,
    a third of a listed deployment). For large read-only batches (a state's records, a
    listing's deployments): a field assigned afterwards would count as given in all of
    them, which only a dump with `exclude_unset` could tell, and none dumps them so;
    `model_copy(update=...)` copies the set before it adds to it."""
    names = model.model_fields_set
    last = _LAST_SHARED.get(type(model))
    if last is None or last != names:
        last = _SHARED.setdefault(frozenset(names), names)
        _LAST_SHARED[type(model)] = last
    if last is not names:
        set_given_names(model, last)


_SHARED: dict[frozenset[str], set[str]] = {}
_LAST_SHARED: dict[type[BaseModel], set[str]] = {}  # the set most recently shared, by class
