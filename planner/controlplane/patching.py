"""PATCH semantics of the local control plane, as a pure function of stored + requested.

- Nulls are ignored (merged); a PATCH never clears a stored value with null.
- `secrets`: omitted or `[]` = unchanged; a non-empty list replaces the stored one (one
  secret per name, the last of a name winning: `unique_secrets`).
- `secret_references`: a list (even `[]`) replaces the stored one, so `[]` clears.
- A non-null `source_config.resource_spec` replaces the stored spec wholesale; every
  other `source_config` / `source_revision_config` field is merged field by field.
- An unmodifiable field (`name`, `source`, or immutable per `planner.api.fields.classify`)
  with a value different from the stored one is refused naming the field (HTTP 400, as
  the real service answers); the same value is an accepted no-op. The OpenAPI document
  marks those fields `readOnly` in the PATCH body: a client does not send them.
- A field belonging to another source than the deployment's, or a rule broken by the
  merged result, conflicts with the stored deployment (HTTP 409): the body alone is
  valid, the resource's current state decides.
The caller creates ONE revision when any changed path is a new-revision field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from planner.api.fields import ChangeClass, classify, read_only_keys
from planner.api.models import DeploymentPatch, Source
from planner.api.rules import check_source_rules
from planner.controlplane.validation import describe, merged_problems

READ_ONLY_REVISION_FIELDS = read_only_keys("source_revision_config")
_SOURCES = frozenset(source.value for source in Source)


class PatchBody(DeploymentPatch):
    """The PATCH body as the server reads it: `name` is checked (it cannot change)."""

    name: str | None = Field(
        default=None, description="Accepted only when equal to the deployment's name."
    )
    # The source of the revision the PATCH creates, when it names one; any other value is
    # ignored, as the seed's document names no such key (the service dialect has checked it
    # against its enum before, and its document names it).
    revision_source: SkipJsonSchema[Any] = None

    @field_validator("revision_source", mode="after")
    @classmethod
    def _only_a_source(cls, value: Any) -> str | None:
        return value if isinstance(value, str) and value in _SOURCES else None


class PatchRejected(Exception):
    """A PATCH that changes an unmodifiable field (HTTP 400); `detail` names it."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class PatchConflict(PatchRejected):
    """A PATCH the stored deployment refuses (HTTP 409): a field of another source than
    its own, or a rule the merged deployment would break; `detail` names the field(s)."""


def unique_secrets(secrets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One secret per name, the last value given for a name winning (as a Kubernetes
    Secret built from the list, or a container's env list, keeps the last), in the order
    names first appear."""
    by_name = {str(s.get("name")): s for s in secrets}
    return list(by_name.values())


@dataclass
class Patched:
    """The deployment's fields as the PATCH leaves them, and which paths changed."""

    source_config: dict[str, Any]
    source_revision_config: dict[str, Any]
    secrets: list[dict[str, Any]]
    secret_references: list[dict[str, Any]]
    display_name: str | None = None
    changed: list[str] = field(default_factory=list)

    @property
    def needs_revision(self) -> bool:
        return any(classify(p) is ChangeClass.NEW_REVISION for p in self.changed)


def _pruned(config: Mapping[str, Any]) -> dict[str, Any]:
    """Drop empty objects: an all-null `resource_spec` or `listener_config` is unset."""
    return {k: v for k, v in config.items() if v != {}}


def _requested_config(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The PATCH's source_config without nulls; an empty resource_spec still replaces."""
    config = wire.get("source_config", {})
    return {k: v for k, v in config.items() if v != {} or k == "resource_spec"}


def _reject_identity(wire: Mapping[str, Any], stored: Mapping[str, Any]) -> None:
    """`name` and `source` may be repeated in a PATCH, never changed."""
    for key in ("name", "source"):
        requested = wire.get(key)
        if requested is not None and requested != stored[key]:
            raise PatchRejected(
                f"{key}: cannot be changed after creation (stored {stored[key]!r}, "
                f"requested {requested!r}); delete and re-create the deployment to change it"
            )


def _reject_foreign_fields(wire: Mapping[str, Any], source: str) -> None:
    problems = check_source_rules(wire, source, require_complete=False)
    if problems:
        raise PatchConflict(describe(problems))


def _reject_immutable(stored: Mapping[str, Any], requested: Mapping[str, Any]) -> None:
    for key, value in requested.items():
        path = f"source_config.{key}"
        if classify(path) is ChangeClass.IMMUTABLE and value != stored.get(key):
            raise PatchRejected(
                f"{path}: cannot be changed after creation "
                f"(stored {stored.get(key)!r}, requested {value!r}); delete and re-create "
                "the deployment to change it"
            )


def _merged(stored: Mapping[str, Any], requested: Mapping[str, Any]) -> dict[str, Any]:
    return _pruned({**stored, **requested})


def _changed_keys(prefix: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    keys = sorted(set(before) | set(after))
    return [f"{prefix}.{k}" for k in keys if before.get(k) != after.get(k)]


def _by_name(items: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted((str(i.get("name")), repr(sorted(i.items()))) for i in items)


def apply_patch(stored: Mapping[str, Any], patch: DeploymentPatch) -> Patched:
    """The merge of `patch` into `stored` (a deployment's wire fields), or PatchRejected.

    `patch` may carry a `name` (see `PatchBody`), checked like `source`.
    """
    wire = patch.model_dump(mode="json", exclude_none=True)
    source = str(stored["source"])
    _reject_identity(wire, stored)
    _reject_foreign_fields(wire, source)
    requested_config = _requested_config(wire)
    _reject_immutable(stored["source_config"], requested_config)
    requested_revision = {
        k: v
        for k, v in wire.get("source_revision_config", {}).items()
        if k not in READ_ONLY_REVISION_FIELDS
    }
    patched = Patched(
        source_config=_merged(stored["source_config"], requested_config),
        source_revision_config=_merged(stored["source_revision_config"], requested_revision),
        secrets=list(stored["secrets"]),
        secret_references=list(stored["secret_references"]),
        display_name=wire.get("display_name", stored.get("display_name")),
    )
    _merge_secrets(patched, wire)
    _record_changes(patched, stored)
    problems = merged_problems(_wire_of(patched), source)
    if problems:
        raise PatchConflict(describe(problems))
    return patched


def _merge_secrets(patched: Patched, wire: Mapping[str, Any]) -> None:
    secrets = unique_secrets(wire.get("secrets") or [])
    if secrets and _by_name(secrets) != _by_name(patched.secrets):
        patched.secrets = list(secrets)
    references = wire.get("secret_references")
    if references is not None and _by_name(references) != _by_name(patched.secret_references):
        patched.secret_references = list(references)


def _record_changes(patched: Patched, stored: Mapping[str, Any]) -> None:
    changed = _changed_keys("source_config", stored["source_config"], patched.source_config)
    changed += _changed_keys(
        "source_revision_config", stored["source_revision_config"], patched.source_revision_config
    )
    if patched.secrets != stored["secrets"]:
        changed.append("secrets")
    if patched.secret_references != stored["secret_references"]:
        changed.append("secret_references")
    if patched.display_name != stored.get("display_name"):
        changed.append("display_name")
    patched.changed = changed


def _wire_of(patched: Patched) -> dict[str, Any]:
    return {
        "source_config": patched.source_config,
        "source_revision_config": patched.source_revision_config,
        "secrets": patched.secrets,
        "secret_references": patched.secret_references,
    }
