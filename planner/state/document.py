"""The state document: what the planner manages, for which endpoint, with a checksum.

Invariants:
- `lineage` is fixed when the document is created and never changes;
- `serial` only grows: a backend bumps it on every write;
- `checksum` is `sha256:` + the hex sha256 of the canonical body (every key except
  `checksum`, `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`);
- no secret value is stored: `RecordedDeployment.secret_digests` holds keyed digests only.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from planner import __version__
from planner.command_lines import suggested_command
from planner.errors import StateError, UnknownDeploymentError, did_you_mean
from planner.files import MAX_WRITTEN_NESTING, parse_nested
from planner.pydantic_internals import field_values, private_values
from planner.state.endpoints import canonical_endpoint, same_endpoint, target_text
from planner.state.json_chunks import canonical_chunks, indented_chunks, json_value
from planner.state.records import RecordedDeployment, share_given_names

# 2: a record may hold a rollback's `held` (planner.state.records.Hold). Every write is
# of FORMAT_VERSION: a state of version 1 is read as it is and upgraded on its next write,
# so a planner that knows no holds never reads (and applies over) one.
FORMAT_VERSION: Literal[2] = 2
SUPPORTED_FORMAT_VERSIONS = (1, FORMAT_VERSION)
_DIGEST_FORMAT = re.compile(r"^hmac-sha256:[0-9a-f]{64}$")


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_utc(moment: datetime, timespec: str = "auto") -> str:
    """MOMENT as ISO 8601 in UTC with a `Z` (`2026-11-23T09:53:00Z`): the one spelling
    of a time in the state, plan files and output (never `+00:00` beside `Z`)."""
    return moment.astimezone(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")


class IntentOp(StrEnum):
    """What a journalled operation does (the `op` of a PendingIntent)."""

    CREATE = "create"
    UPDATE = "update"  # a PATCH; `details` holds the values it sets (see plan.recovery)
    DELETE = "delete"
    # a rollback's redeploy; `details`: the revision rolled back to, the deployment's latest
    # revision before it, who (see planner.plan.redeploys)
    REDEPLOY = "redeploy"


class PendingIntent(BaseModel):
    """An operation apply started but has not recorded yet (journalled before it is sent).

    After a crash, an intent left here tells the next run that e.g. a create may have
    happened remotely without being recorded, so it can look the name up before creating.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    op: str
    name: str
    started_at: str
    deployment_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class _Book:
    """A document's bookkeeping (not content): the changes made since `track_changes()`,
    as oplog deltas (None: not tracked), and the pending intents of each name, kept for
    the list object and length in `counted`."""

    __slots__ = ("changes", "counted", "named")

    def __init__(self) -> None:
        self.changes: list[dict[str, Any]] | None = None
        self.named: dict[str, list[PendingIntent]] = {}
        self.counted: tuple[int, int] = (0, -1)


class StateDocument(BaseModel):
    """The whole state of one config file against one endpoint and workspace."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    format_version: Literal[1, 2] = FORMAT_VERSION
    lineage: str = Field(default_factory=lambda: str(uuid.uuid4()))
    serial: int = Field(default=0, ge=0)
    tool_version: str = __version__
    endpoint: str
    tenant_id: str | None = None
    deployments: dict[str, RecordedDeployment] = Field(default_factory=dict)
    pending: list[PendingIntent] = Field(default_factory=list)
    checksum: str | None = None
    # how many operation-log groups a read replayed over the stored version (planner.state.oplog)
    _replayed: int = PrivateAttr(default=0)
    # the change log and the index of intents by name, in one plain object read through
    # `_bookkeeping()`: a private attribute read goes through pydantic's `__getattr__`
    # (1.7 us; a dozen of them per recorded operation were a tenth of an apply's CPU)
    _book: _Book = PrivateAttr(default_factory=lambda: _Book())

    @field_validator("deployments")
    @classmethod
    def _no_secret_values(
        cls, deployments: dict[str, RecordedDeployment]
    ) -> dict[str, RecordedDeployment]:
        for key, recorded in deployments.items():
            check_recorded(key, recorded)
        return deployments

    def _bookkeeping(self) -> _Book:
        """`self._book`, read from pydantic's private dict without its `__getattr__`."""
        book: _Book = private_values(self)["_book"]
        return book

    @classmethod
    def new(cls, endpoint: str, tenant_id: str | None) -> StateDocument:
        """A fresh, empty state (serial 0, new lineage) for one endpoint (recorded in its
        canonical spelling) and workspace."""
        return cls(endpoint=canonical_endpoint(endpoint), tenant_id=tenant_id)

    def check_belongs_to(
        self,
        endpoint: str,
        tenant_id: str | None,
        *,
        source: str | None = None,
        base: Path | None = None,
    ) -> None:
        """Refuse a state written for another control plane or workspace (SOURCE: its file;
        BASE: the config's directory, which relative embedded paths are relative to)."""
        if same_endpoint(self.endpoint, endpoint, base) and self.tenant_id == tenant_id:
            return
        raise StateError(
            f"{f'state {source}' if source else 'the state'} belongs to another control "
            "plane or workspace",
            details=[
                f"state written for: {target_text(self.endpoint, self.tenant_id)}",
                f"this run targets:  {target_text(endpoint, tenant_id)}",
            ],
            hint="point --state at the state file of this endpoint and workspace, "
            "or target the endpoint the state was written for",
        )

    def __eq__(self, other: object) -> bool:
        # the fields only: the private change log and counts are bookkeeping, not content
        return isinstance(other, StateDocument) and field_values(self) == field_values(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like every BaseModel

    def snapshot(self) -> StateDocument:
        """A copy to write while this document goes on changing: containers of its own,
        the entries shared (deployments and intents are replaced, never changed in place),
        so it costs two lists of references, not a second document."""
        containers = {"deployments": dict(self.deployments), "pending": list(self.pending)}
        return StateDocument.model_construct(**{**field_values(self), **containers})

    @property
    def replayed(self) -> int:
        """How many operation-log groups the read that made this document replayed."""
        return self._replayed

    def mark_replayed(self, groups: int) -> None:
        self._replayed = groups

    def track_changes(self) -> None:
        """From now on, note every change made through these methods (see `take_changes`)."""
        self._bookkeeping().changes = []

    def take_changes(self) -> list[dict[str, Any]]:
        """The changes noted since the last call, as operation-log deltas (oldest first)."""
        book = self._bookkeeping()
        changes, book.changes = book.changes or [], [] if book.changes is not None else None
        return changes

    def _note(self, kind: str, value: Any) -> None:
        changes = self._bookkeeping().changes
        if changes is not None:
            changes.append({kind: value})

    def record(self, recorded: RecordedDeployment) -> None:
        """Insert or replace one managed deployment (what apply calls after each change)."""
        check_recorded(recorded.name, recorded)
        share_given_names(recorded)  # 21 MiB of an apply creating 30,000
        # in place: reassigning would revalidate every deployment (O(n) per record)
        self.deployments[recorded.name] = recorded
        changes = self._bookkeeping().changes
        if changes is not None:
            changes.append({"record": recorded.model_dump(mode="json")})

    def forget(self, name: str) -> RecordedDeployment:
        """Drop one deployment from the state (the remote deployment is not touched)."""
        if name not in self.deployments:
            raise StateError(f"{name} is not in the state", hint=_known_names_hint(self))
        self._note("forget", name)
        return self.deployments.pop(name)

    def get(self, name: str) -> RecordedDeployment:
        """The recorded deployment NAME, or an UnknownDeploymentError listing the known
        names (and the closest one, when one is close)."""
        if name not in self.deployments:
            raise UnknownDeploymentError(
                f"{name} is not in the state{did_you_mean(name, sorted(self.deployments))}",
                hint=_known_names_hint(self),
            )
        return self.deployments[name]

    def add_intent(
        self,
        op: str,
        name: str,
        *,
        deployment_id: str | None = None,
        details: dict[str, Any] | None = None,
        now: datetime | None = None,
    ) -> PendingIntent:
        """Journal an operation about to be sent; write the state before sending it."""
        intent = PendingIntent(
            op=op,
            name=name,
            deployment_id=deployment_id,
            details=dict(details or {}),
            started_at=iso_utc(now or utc_now()),
        )
        share_given_names(intent)  # 21 MiB of an apply journalling 30,000 creates
        self.pending.append(intent)
        self._counted_change(intent, 1)
        changes = self._bookkeeping().changes
        if changes is not None:
            changes.append({"intent": intent.model_dump(mode="json")})
        return intent

    def clear_intent(self, intent: PendingIntent | str) -> None:
        """Drop a journalled operation once its outcome is recorded (unknown ids are ignored).

        Searched from the oldest: intents are mostly cleared in the order they were
        journalled, so this is O(1) in practice, not O(pending) per clear."""
        intent_id = intent if isinstance(intent, str) else intent.id
        for index, entry in enumerate(self.pending):
            if entry.id == intent_id:
                del self.pending[index]
                self._counted_change(entry, -1)
                self._note("clear", intent_id)
                return

    def _intents_by_name(self) -> dict[str, list[PendingIntent]]:
        """The pending intents of each name (oldest first), rebuilt only when `pending` was
        replaced or changed size behind this document's back (its own changes keep it in
        step)."""
        book, pending = self._bookkeeping(), self.pending
        if book.counted != (id(pending), len(pending)):
            book.named = {}
            for entry in pending:
                book.named.setdefault(entry.name, []).append(entry)
            book.counted = (id(pending), len(pending))
        return book.named

    def _counted_change(self, entry: PendingIntent, step: int) -> None:
        book, pending = self._bookkeeping(), self.pending
        if book.counted != (id(pending), len(pending) - step):
            return  # out of step already: the next lookup rebuilds the index
        named = book.named.setdefault(entry.name, [])
        if step > 0:
            named.append(entry)
        else:
            named[:] = [other for other in named if other is not entry]
        if not named:
            del book.named[entry.name]
        book.counted = (id(pending), len(pending))

    def intents_for(self, name: str) -> list[PendingIntent]:
        return list(self._intents_by_name().get(name, ()))

    def clear_intents(self, name: str, *ops: IntentOp) -> bool:
        """Drop NAME's journalled operations of kinds OPS (a newer record supersedes them);
        True when there were any. Looks at NAME's intents only, so recording N operations
        is linear however many are journalled (a create journals every create up front)."""
        cleared = [e.id for e in self._intents_by_name().get(name, ()) if e.op in ops]
        for intent_id in cleared:
            self.clear_intent(intent_id)
        return bool(cleared)


def check_recorded(key: str, recorded: RecordedDeployment) -> None:
    """Refuse anything that could be a secret value: only keyed digests may be stored."""
    if key != recorded.name:
        raise ValueError(f"deployment recorded under {key!r} is named {recorded.name!r}")
    if "secrets" in recorded.managed:
        raise ValueError(f"{key}: secret values must not be recorded in `managed`")
    for secret_name, digest in recorded.secret_digests.items():
        if not _DIGEST_FORMAT.match(digest):
            # Never echo the value: it may be the secret itself.
            raise ValueError(f"{key}: secret {secret_name} is not a keyed digest (hmac-sha256)")


def adopt(doc: StateDocument, *adopted: RecordedDeployment) -> None:
    """Start managing existing deployments (what `planner import` records); linear in
    the state's size however many are adopted (`import --all` adopts thousands)."""
    names_by_id = {other.id: other.name for other in doc.deployments.values()}
    for recorded in adopted:
        if recorded.name in doc.deployments:
            current = doc.deployments[recorded.name]
            raise StateError(
                f"{recorded.name} is already in the state (deployment {current.id})",
                hint=f"to adopt another deployment under this name, first run "
                f"`{suggested_command('state rm', recorded.name)}`",
            )
        if recorded.id in names_by_id:
            raise StateError(
                f"deployment {recorded.id} is already in the state as {names_by_id[recorded.id]}",
                hint="one remote deployment can be managed under one name only",
            )
        doc.record(recorded)
        names_by_id[recorded.id] = recorded.name


def compute_checksum(body: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the canonical body (a mapping without the `checksum` key), hashed
    piece by piece (`canonical_chunks`): no second copy of a large state is built."""
    digest = hashlib.sha256()
    for chunk in canonical_chunks(body):
        digest.update(chunk.encode("utf-8"))
    return f"sha256:{digest.hexdigest()}"


def checksum_of(doc: StateDocument) -> str:
    """The checksum of what DOC holds (its entries dumped one at a time)."""
    return compute_checksum(_parts(doc))


def _parts(doc: StateDocument) -> dict[str, Any]:
    """DOC's body (without `checksum`) with its deployments and intents left as models,
    in containers of their own: what the chunk functions encode."""
    parts = doc.model_dump(mode="json", exclude={"checksum", "deployments", "pending"})
    parts.update(deployments=dict(doc.deployments), pending=list(doc.pending))
    return parts


# entries validated at once by `sealed`: a batch's copy is all it holds beside DOC
_SEAL_BATCH = 1000


def sealed(doc: StateDocument, serial: int) -> StateDocument:
    """DOC as version SERIAL of the current tool version and format, with the checksum of
    what it holds: a new document, validated as a whole one would be (a batch of entries
    at a time), that shares DOC's deployments and intents (models that are replaced, never
    changed in place) in containers of its own; DOC is not changed."""
    parts = _parts(doc)
    parts.update(serial=serial, tool_version=__version__, format_version=FORMAT_VERSION)
    problems = _problems_of(parts)
    if problems:
        raise StateError("refusing to write an invalid state", details=problems)
    return StateDocument.model_construct(**parts, checksum=compute_checksum(parts))


def _problems_of(parts: dict[str, Any]) -> list[str]:
    """What validating PARTS as one StateDocument would report (without values), found
    by validating its fields with a batch of its entries at a time."""
    deployments = list(parts["deployments"].items())
    pending = parts["pending"]
    problems: dict[str, None] = {}  # in order, each once (every batch has the fields)
    for start in range(0, max(len(deployments), len(pending), 1), _SEAL_BATCH):
        batch = {
            **parts,
            "deployments": {
                name: json_value(recorded)
                for name, recorded in deployments[start : start + _SEAL_BATCH]
            },
            "pending": [json_value(intent) for intent in pending[start : start + _SEAL_BATCH]],
        }
        try:
            StateDocument.model_validate(batch)
        except ValidationError as error:
            problems.update(dict.fromkeys(_problems(error, offset={"pending": start})))
    return list(problems)


def advance(doc: StateDocument, written: StateDocument) -> None:
    """Bring DOC to the serial (and checksum) it was just written with, so it can be
    changed and written again; a document some other writer overtook stays stale."""
    doc.serial = written.serial
    doc.tool_version = written.tool_version
    doc.format_version = written.format_version
    doc.checksum = written.checksum


def state_chunks(doc: StateDocument) -> Iterator[str]:
    """`dump_state(doc)` in pieces (`indented_chunks`), for writing a large state without
    holding its text."""
    if doc.checksum is None:
        raise ValueError("dump_state needs a sealed document (see `sealed`)")
    yield from indented_chunks({**_parts(doc), "checksum": doc.checksum})
    yield "\n"


def dump_state(doc: StateDocument) -> str:
    """The file text: indented for humans; the checksum is over the canonical form."""
    return "".join(state_chunks(doc))


def parse_state(text: str, *, source: str, backup: str | None = None) -> StateDocument:
    """Parse and verify a state file's text; every failure is a StateError naming SOURCE."""
    raw = _load_json_object(text, source, backup)
    version = raw.get("format_version")
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise StateError(
            f"state file {source} has format_version {version!r}, which this planner "
            f"({__version__}) does not know",
            hint=f"supported: {', '.join(map(str, SUPPORTED_FORMAT_VERSIONS))}; "
            "use the planner version that wrote it",
        )
    _verify_checksum(raw, source, backup)
    try:
        doc = StateDocument.model_validate(raw)
    except ValidationError as error:
        raise StateError(
            f"state file {source} is not a valid state", details=_problems(error)
        ) from None
    for recorded in doc.deployments.values():
        share_given_names(recorded)  # 7 MiB of a 10,000-deployment state
    return doc


def _load_json_object(text: str, source: str, backup: str | None) -> dict[str, Any]:
    """The file's JSON object; an empty, cut short or other file is a StateError whose hint
    is the way back (the backup, when there is one)."""
    if not text.strip():
        raise StateError(f"state file {source} is empty", hint=_restore_hint(source, backup))
    try:
        raw = parse_nested(json.loads, text, Path(source), StateError, MAX_WRITTEN_NESTING)
    except json.JSONDecodeError as error:
        raise StateError(
            f"state file {source} is not valid JSON (line {error.lineno}, "
            f"column {error.colno}: {error.msg})",
            hint=_restore_hint(source, backup),
        ) from None
    if not isinstance(raw, dict):
        raise StateError(
            f"state file {source} is not a JSON object", hint=_restore_hint(source, backup)
        )
    return raw


def _verify_checksum(raw: dict[str, Any], source: str, backup: str | None) -> None:
    stored = raw.get("checksum")
    body = {key: value for key, value in raw.items() if key != "checksum"}
    if isinstance(stored, str) and stored == compute_checksum(body):
        return
    raise StateError(
        f"state file {source} is corrupt or was edited by hand (checksum mismatch)",
        hint=_restore_hint(source, backup),
    )


def _restore_hint(source: str, backup: str | None) -> str:
    """The way back from a state file that cannot be read: BACKUP, when there is one."""
    hint = (
        f"restore the previous version from {backup} (copy it over {source}) if it is intact"
        if backup
        else "restore the file from a copy you trust"
    )
    return hint + "; never edit a state file by hand: use `planner state` commands"


def _problems(error: ValidationError, offset: dict[str, int] | None = None) -> list[str]:
    """One line per problem, `path: message` (OFFSET: what to add to the index after a
    field name, for a list validated a slice at a time)."""
    # input values are left out on purpose: a field could hold something sensitive
    return [
        f"{'.'.join(str(part) for part in _shifted(problem['loc'], offset or {})) or '(root)'}: "
        f"{problem['msg']}"
        for problem in error.errors()
    ]


def _shifted(loc: tuple[int | str, ...], offset: dict[str, int]) -> tuple[int | str, ...]:
    if len(loc) > 1 and isinstance(loc[0], str) and isinstance(loc[1], int):
        return (loc[0], loc[1] + offset.get(loc[0], 0), *loc[2:])
    return loc


def _known_names_hint(doc: StateDocument) -> str:
    if not doc.deployments:
        return "the state manages no deployments"
    return "names in the state: " + ", ".join(sorted(doc.deployments))
