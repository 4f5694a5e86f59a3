"""The Plan value: what `planner plan` decided, as data (rendered by `planner.render`).

Invariants:
- no secret value ever appears in a Plan: secrets print as `(sensitive)` and are carried
  only as keyed digests (`Change.secret_digests`) so apply can check it sends what was
  planned;
- lists are sorted (changes by name, fields by path, drift and errors by name and path),
  so two plans of the same inputs are equal and serialize byte for byte alike;
- `model_dump(mode="json")` gives the JSON plan of PRODUCT.md (`class` is the key of a
  field's change class).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic_core import PydanticUndefined

from planner import __version__
from planner.api.fields import ChangeClass
from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.errors import PlanError
from planner.pydantic_internals import private_values, unvalidated
from planner.state.document import IntentOp

# A minor step adds keys (1.1: a field change's `drifted`; 1.2: `policies`). A 1.1 plan
# still reads (it has no policy results; apply checks the policies again anyway); a 1.0
# one lacks keys 1.1 seals.
FORMAT_VERSION: Literal["1.2"] = "1.2"
FormatVersion = Literal["1.1", "1.2"]
READABLE_FORMATS: tuple[str, ...] = ("1.1", FORMAT_VERSION)
# The keys a plan of each older readable format does not have (not in what its seal covers).
KEYS_ADDED_AFTER = {"1.1": ("policies",)}
# The end of a drifted field's reason (the flag is `FieldChange.drifted`).
DRIFT_REASON = "changed outside the planner; planned back to the config"


class Action(StrEnum):
    """The closed set of things a plan can do to one deployment (value = JSON name)."""

    CREATE = "create"
    UPDATE = "update"
    NEW_REVISION = "new_revision"
    DELETE = "delete"
    REPLACE = "replace"
    NO_OP = "no_op"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]


_SYMBOLS = {
    Action.CREATE: "+",
    Action.UPDATE: "~",
    Action.NEW_REVISION: "↻",
    Action.DELETE: "-",
    Action.REPLACE: "±",
    Action.NO_OP: " ",
}


class PlanModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_by_name=True, serialize_by_alias=True
    )


_Model = TypeVar("_Model", bound=PlanModel)
# What `built` makes an instance of a model from, per model and set of given names: the
# set of those names (shared by the instances: pydantic copies it before a
# `model_copy(update=...)` changes it), the fields in order with the defaults of those
# not given, and the default factories of those not given.
_Recipe = tuple[set[str], dict[str, Any], list[tuple[str, Callable[[], Any]]]]
_RECIPES: dict[tuple[type[PlanModel], frozenset[str]], _Recipe] = {}


def built(cls: type[_Model], **values: Any) -> _Model:
    """CLS of VALUES that are already of its fields' types, unvalidated: no copy of any
    value and no per-instance set of the given names. For what a large plan has one of
    per deployment or field; the JSON, text and equality are the validated instance's.

    What `model_construct` makes, without its per-field work (it inspects the signature of
    each default factory, for every instance)."""
    key = (cls, frozenset(values))
    given, defaults, factories = _RECIPES.get(key) or _recipe(key)
    fields = defaults.copy()
    fields.update(values)
    for name, factory in factories:
        fields[name] = factory()
    return unvalidated(cls, fields, given)


def _recipe(key: tuple[type[PlanModel], frozenset[str]]) -> _Recipe:
    cls, names = key
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    for name, field in cls.model_fields.items():
        default, factory = field.default, field.default_factory
        # immutable defaults only: they are shared as they are
        assert factory or default in (None, PydanticUndefined) or type(default) in (str, bool, int)
        if name in names or factory is not None or default is not PydanticUndefined:
            defaults[name] = None if default is PydanticUndefined else default  # in order
        if name not in names and factory is not None:
            factories.append((name, cast(Callable[[], Any], factory)))
    return _RECIPES.setdefault(key, (set(names), defaults, factories))


class FieldChange(PlanModel):
    """One managed field that differs: `before` is observed, `after` is planned."""

    path: str
    change_class: ChangeClass = Field(alias="class")
    before: Any = None
    after: Any = None
    reason: str = ""
    drifted: bool = Field(
        default=False,
        description="the observed value was changed outside the planner; the plan sets it back",
    )


class Change(PlanModel):
    """What the plan does to one deployment.

    `before`/`after` are the managed view of the deployment (only the fields the config
    sets, secrets masked) as observed and as planned; `patch` is the RFC 6902 patch that
    turns `before` into `after`. `request_body` is the non-secret part of the request apply
    sends (PATCH body for update/new_revision, POST body for create/replace); apply adds
    the secrets (see `planner.plan.body`), checking them against `secret_digests`.
    """

    name: str
    action: Action
    deployment_id: str | None = None
    fields: list[FieldChange] = Field(default_factory=list)
    patch: list[dict[str, Any]] = Field(default_factory=list)
    before: dict[str, Any] = Field(default_factory=dict)
    after: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    request_body: dict[str, Any] = Field(default_factory=dict)
    send_secrets: bool = False
    secret_digests: dict[str, str] = Field(default_factory=dict)
    gone: bool = False  # the recorded deployment no longer exists remotely
    reason: str | None = None  # why a change no field explains is planned (a failed revision)
    create_before_destroy: bool = Field(
        default=False,
        description="a replace that creates the new deployment first, then deletes the old one",
    )
    moved_from: str | None = Field(
        default=None,
        description="the address the state recorded it under (a move: nothing is sent for it)",
    )


class Drift(PlanModel):
    """A managed value changed outside the planner (`path` None: the whole deployment)."""

    name: str
    path: str | None = None
    recorded: Any = None
    observed: Any = None


class Recovered(PlanModel):
    """An operation an interrupted apply sent but never recorded, found done on the server
    (so it is not drift): `paths` are the fields an update had set."""

    name: str
    operation: IntentOp
    deployment_id: str | None = None
    paths: list[str] = Field(default_factory=list)


class Rollout(PlanModel):
    """A managed deployment whose latest revision is still in progress: not re-submitted."""

    name: str
    deployment_id: str
    revision_id: str
    status: str
    active_revision_id: str | None = None


class Unmanaged(PlanModel):
    """A deployment of the workspace that neither this state nor any other state the planner
    can see records (states it cannot see may manage it): listed, nothing sent for it."""

    name: str
    id: str
    created_at: str
    import_command: str


class HeldLock(PlanModel):
    """The state lock a writer held while the plan read the state (a plan takes none)."""

    holder: str = Field(description="who holds it: user@host (pid N)")
    operation: str = Field(description="what the holder is doing: apply, destroy, import, ...")
    since: str = Field(description="when the holder took it (ISO 8601, UTC)")
    id: str = Field(description="the lock id (`planner unlock ID` clears a dead holder's)")


class PlanProblem(PlanModel):
    """An error that blocks apply: what, where, and the way out."""

    name: str
    path: str | None = None
    message: str
    hint: str | None = None


class PolicyResult(PlanModel):
    """A policy a deployment of the plan did not pass (passes are not listed)."""

    policy: str = Field(description="the policy's name ([policies.NAME] of the config)")
    deployment: str = Field(description="the deployment's address (its table key)")
    severity: Literal["deny", "warn"] = Field(
        description="deny: an error of the plan (also in `errors`); warn: shown only"
    )
    message: str = Field(description="the policy's message")
    error: str | None = Field(
        default=None,
        description="the expression failed to evaluate (null: it was false); a failure "
        "is a deny whatever the policy's severity",
    )


class PlanWarning(PlanModel):
    name: str | None = None
    message: str


def _is_empty(value: Any) -> bool:
    return not value


class HeldDeployment(PlanModel):
    """A deployment a rollback holds on an earlier revision (`planner rollback`): the plan
    changes nothing of it until `planner release`. `changes` are what the config would
    change if it were released (shown, never applied, never seen by a policy)."""

    address: str = Field(description="the deployment's address (its table key)")
    revision: str = Field(
        description="the revision the rollback went back to (`planner rollback --to`); its "
        "redeploy is the active revision"
    )
    since: str = Field(description="when the hold was set (ISO 8601, UTC)")
    by: str = Field(description="who set it: user@host")
    changes: list[FieldChange] = Field(
        default_factory=list,
        description="the field changes the config would make (not planned while it is held)",
    )
    release_command: str = Field(
        description="the command that lifts the hold (`planner release`, with the options given)"
    )
    removed: bool = Field(
        default=False,
        exclude_if=_is_empty,
        description="the config no longer declares it: released, it would be deleted "
        "(absent: it still does)",
    )


class Summary(PlanModel):
    create: int = 0
    update: int = 0
    new_revision: int = 0
    delete: int = 0
    replace: int = 0
    no_op: int = 0
    moved: int = 0
    held: int = Field(
        default=0,
        exclude_if=_is_empty,
        description="deployments held by a rollback, not planned (absent: none)",
    )


PlanMode = Literal["normal", "destroy", "refresh-only"]


class Plan(PlanModel):
    format_version: FormatVersion = FORMAT_VERSION
    mode: PlanMode = "normal"
    config: str | None = Field(default=None, description="the config file the plan was made from")
    environment: str | None = Field(
        default=None, description="the config's environment (null: the config has none)"
    )
    summary: Summary = Field(default_factory=Summary)
    changes: list[Change] = Field(default_factory=list)
    drift: list[Drift] = Field(default_factory=list)
    recovered: list[Recovered] = Field(default_factory=list)
    errors: list[PlanProblem] = Field(default_factory=list)
    warnings: list[PlanWarning] = Field(default_factory=list)
    rollouts: list[Rollout] = Field(default_factory=list)
    unmanaged: list[Unmanaged] = Field(default_factory=list)
    held: list[HeldDeployment] = Field(
        default_factory=list,
        exclude_if=_is_empty,
        description="deployments a rollback holds: their config changes are listed, not "
        "planned, until `planner release` (absent: none is held)",
    )
    policies: list[PolicyResult] = Field(
        default_factory=list,
        description="the policies deployments of the plan did not pass (denials are errors too)",
    )
    record_command: str | None = Field(
        default=None,
        description="a refresh-only plan with drift: the command that records the drift "
        "into the state (`planner apply --refresh-only`, with the options given)",
    )
    partial: bool = Field(
        default=False, description="narrowed by --only/--exclude: other deployments not planned"
    )
    lock: HeldLock | None = Field(
        default=None,
        description="the state lock a writer held when the plan read the state (null: "
        "free); the plan read a consistent snapshot and may be overtaken by that run",
    )
    only: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    # How the config wrote each deployment's words (those it wrote the seed's way are not
    # here): what a view shows of it is in those words; not part of the JSON plan.
    _spellings: dict[str, Spelling] = PrivateAttr(default_factory=dict)

    def spelling_of(self, name: str) -> Spelling:
        """How the config wrote deployment NAME's words (the seed's when it did not)."""
        spellings: dict[str, Spelling] = private_values(self).get("_spellings") or {}
        return spellings.get(name, SEED_SPELLING)

    def spelled(self, spellings: dict[str, Spelling]) -> Plan:
        """This plan, its views to word the deployments of SPELLINGS as they map."""
        plan = self.model_copy()
        plan._spellings = {n: s for n, s in spellings.items() if s is not SEED_SPELLING}
        return plan

    @property
    def has_changes(self) -> bool:
        return any(
            change.action is not Action.NO_OP or change.moved_from is not None
            for change in self.changes
        )

    @property
    def has_errors(self) -> bool:
        return bool(self.errors)

    def changes_with(self, *actions: Action) -> list[Change]:
        return [change for change in self.changes if change.action in actions]


def summarize(changes: list[Change], held: int = 0) -> Summary:
    """The counts of CHANGES by action, the moves among them, and HELD (deployments held
    by a rollback: listed, not planned)."""
    counts = {action.value: 0 for action in Action}
    for change in changes:
        counts[change.action.value] += 1
    moved = sum(change.moved_from is not None for change in changes)
    return Summary(**counts, moved=moved, held=held)


def plan_json_schema() -> dict[str, Any]:
    """The JSON Schema of the JSON plan (`planner.plan.saved.plan_file_json_schema` adds
    the `saved` section of a plan file: that is `schemas/plan.schema.json`)."""
    schema = Plan.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "plan.schema.json"
    return schema


def check_format_version(raw: Any, source: str, written_by: str | None = None) -> None:
    """Refuse a plan document of another format than this planner writes, naming both
    formats and both planner releases (a 1.0 plan lacks the keys 1.1 seals, so it cannot
    be read as if it were one; a newer one may hold keys this release would ignore)."""
    version = raw.get("format_version") if isinstance(raw, dict) else None
    if version is None or version in READABLE_FORMATS:  # none: the validation says why
        return
    raise PlanError(
        f"{source} has plan format_version {version!r} (written by {writer_text(written_by)}); "
        f"this planner ({__version__}) reads {FORMAT_VERSION!r}",
        hint="it was written by another planner version: run `planner plan --out` again",
    )


def writer_text(written_by: str | None) -> str:
    """The planner release that wrote a file, in words."""
    return f"planner {written_by}" if written_by else "a planner release that does not record it"
