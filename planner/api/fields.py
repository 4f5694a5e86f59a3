"""The field-behaviour table: how a change to each field is applied (one table, used by
the planner and the local control plane alike).

Paths are dotted, relative to a Deployment (`source_config.resource_spec.cpu`). The table
is bound to the wire models: every leaf of the request models (`DeploymentCreate`,
`DeploymentPatch`) and of the `Deployment` read gets its class from exactly one entry
(the entry is the leaf itself or one of its parents: `source_config.resource_spec`
classes every key below it), and every entry names a field of those models. Importing
this module checks that (`table_problems`), so a field added to a wire model without a
class stops every run instead of planning as read-only; `classify` refuses a path no
entry covers.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from enum import StrEnum
from functools import cache
from typing import Any, get_args

from pydantic import BaseModel

from planner.api.models import Deployment, DeploymentCreate, DeploymentPatch
from planner.errors import PlannerError


class ChangeClass(StrEnum):
    NO_OP = "no-op"
    IN_PLACE = "in-place"
    NEW_REVISION = "new-revision"
    IMMUTABLE = "immutable"
    READ_ONLY = "read-only"


FIELD_BEHAVIOUR: dict[str, ChangeClass] = {
    "name": ChangeClass.IMMUTABLE,
    "source": ChangeClass.IMMUTABLE,
    "display_name": ChangeClass.IN_PLACE,
    "source_config.integration_id": ChangeClass.IMMUTABLE,
    "source_config.repo_url": ChangeClass.IMMUTABLE,
    "source_config.deployment_type": ChangeClass.IMMUTABLE,
    "source_config.listener_id": ChangeClass.IMMUTABLE,
    "source_config.listener_config": ChangeClass.IMMUTABLE,
    "source_config.template_id": ChangeClass.IMMUTABLE,
    "source_config.build_on_push": ChangeClass.IN_PLACE,
    "source_config.custom_url": ChangeClass.IN_PLACE,
    "source_config.resource_spec": ChangeClass.NEW_REVISION,
    "source_config.install_command": ChangeClass.NEW_REVISION,
    "source_config.build_command": ChangeClass.NEW_REVISION,
    "source_revision_config.repo_ref": ChangeClass.NEW_REVISION,
    "source_revision_config.agent_config_path": ChangeClass.NEW_REVISION,
    "source_revision_config.image_uri": ChangeClass.NEW_REVISION,
    "source_revision_config.source_tarball_path": ChangeClass.NEW_REVISION,
    "source_revision_config.repo_commit_sha": ChangeClass.READ_ONLY,
    "secrets": ChangeClass.NEW_REVISION,
    "secret_references": ChangeClass.NEW_REVISION,
    "id": ChangeClass.READ_ONLY,
    "tenant_id": ChangeClass.READ_ONLY,
    "status": ChangeClass.READ_ONLY,
    "latest_revision_id": ChangeClass.READ_ONLY,
    "active_revision_id": ChangeClass.READ_ONLY,
    "created_at": ChangeClass.READ_ONLY,
    "updated_at": ChangeClass.READ_ONLY,
    "image_version": ChangeClass.READ_ONLY,
}

# The models whose leaves the table classes: the request bodies, and the read that
# carries the fields the service sets.
BOUND_MODELS: tuple[type[BaseModel], ...] = (DeploymentCreate, DeploymentPatch, Deployment)

# Why each class applies, for plan output ("the plan says why").
REASONS: dict[ChangeClass, str] = {
    ChangeClass.IN_PLACE: "changes in place, no new revision",
    ChangeClass.NEW_REVISION: "needs a new revision (build and deploy)",
    ChangeClass.IMMUTABLE: "cannot change after creation; re-create with --replace",
    ChangeClass.READ_ONLY: "set by the service",
    ChangeClass.NO_OP: "unchanged",
}


class FieldTableError(Exception):
    """The table and the wire models disagree: a bug, found when this module is imported."""


class UnknownFieldError(PlannerError):
    """A field path no entry of the table covers (never planned as read-only silently)."""

    code = "field-unknown"


def model_leaves(model: type[BaseModel], prefix: str = "") -> Iterator[str]:
    """The dotted path of every leaf of MODEL: nested wire models (optional or in a
    list) are walked into; anything else (scalars, free-form tables) is a leaf."""
    for name, info in model.model_fields.items():
        nested = nested_model(info.annotation)
        if nested is None:
            yield prefix + name
        else:
            yield from model_leaves(nested, f"{prefix}{name}.")


def nested_model(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (`X`, `X | None`, `list[X]`), None for a scalar."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in get_args(annotation):
        found = nested_model(argument)
        if found is not None:
            return found
    return None


def bound_leaves(models: Sequence[type[BaseModel]] = BOUND_MODELS) -> list[str]:
    """Every leaf of MODELS, each once, sorted."""
    return sorted({leaf for model in models for leaf in model_leaves(model)})


def covering(path: str, table: Mapping[str, ChangeClass]) -> list[str]:
    """The entries of TABLE that class PATH: the path itself and its parents."""
    parts = path.split(".")
    return [p for p in (".".join(parts[:end]) for end in range(1, len(parts) + 1)) if p in table]


def table_problems(table: Mapping[str, ChangeClass], leaves: Sequence[str]) -> list[str]:
    """Every leaf without exactly one class, and every entry naming no leaf."""
    problems = []
    for leaf in leaves:
        entries = covering(leaf, table)
        if len(entries) != 1:
            found = ", ".join(entries) or "none"
            problems.append(f"{leaf}: classed by {len(entries)} entries ({found}), not one")
    for entry in table:
        if not any(leaf == entry or leaf.startswith(entry + ".") for leaf in leaves):
            problems.append(f"{entry}: names no field of the wire models")
    return problems


def check_table() -> None:
    """Raise FieldTableError when FIELD_BEHAVIOUR is not bound to the wire models."""
    problems = table_problems(FIELD_BEHAVIOUR, bound_leaves())
    if problems:
        raise FieldTableError(
            "planner/api/fields.py: FIELD_BEHAVIOUR does not match the wire models: "
            + "; ".join(problems)
        )


check_table()


def read_only_keys(table: str) -> tuple[str, ...]:
    """The keys of a request table (`source_revision_config`) the service sets: read-only
    in the table, so neither a config nor a PATCH sets them (`repo_commit_sha`)."""
    prefix = f"{table}."
    return tuple(
        path.removeprefix(prefix)
        for path, found in FIELD_BEHAVIOUR.items()
        if path.startswith(prefix) and found is ChangeClass.READ_ONLY
    )


@cache  # a plan classes the same few paths for every deployment
def classify(path: str) -> ChangeClass:
    """The change class of a dotted field path (the one table entry covering it).

    A path no entry covers is not a field of the wire models: UnknownFieldError, never a
    silent read-only (which would plan a changed value as "No changes")."""
    entries = covering(path, FIELD_BEHAVIOUR)
    if not entries:
        raise UnknownFieldError(
            f"field {path} has no change class",
            hint="add it to FIELD_BEHAVIOUR in planner/api/fields.py (and to the wire models)",
        )
    return FIELD_BEHAVIOUR[entries[-1]]
