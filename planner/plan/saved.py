"""Saved plan files (`planner plan --out FILE`): the JSON plan plus what apply needs.

The file is the JSON plan (the keys of `schemas/plan.schema.json` at the top level) with
one more key, `saved`: the state's lineage and serial, the endpoint and workspace, the
config and state paths (absolute, so apply works from any directory), the plan options,
for each deployment the plan touches its id, `updated_at` and `latest_revision_id` as
seen when planning, and the `seal`. The config path is recorded twice: absolute, and
relative to the plan file (`config_relative`), so a moved checkout finds it too. It holds
no secret value (the plan carries only keyed digests); it is written atomically with mode
0600.

The seal (`planner.plan.seal`) is an HMAC, under the state's plan key, of the canonical
JSON of everything else in the file (`sealed_content`): apply refuses a plan whose seal
does not verify (`check_seal`) before it sends anything. Whether the plan still holds
(is not stale) is `planner.plan.stale`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner import __version__
from planner.config.desired import DesiredDeployment
from planner.errors import PlanError
from planner.files import MAX_WRITTEN_NESTING, os_reason, parse_nested, read_user_text
from planner.plan.diff import PlanOptions
from planner.plan.model import (
    KEYS_ADDED_AFTER,
    Plan,
    check_format_version,
    plan_json_schema,
    writer_text,
)
from planner.plan.out_files import existing_kind, is_state_shaped, out_hint
from planner.plan.refresh import Observed
from planner.plan.seal import Seal, make_seal, verify_seal
from planner.state.document import StateDocument
from planner.state.localfile import write_atomic
from planner.state.location import is_postgres_url

SAVED_KEY = "saved"
MAX_PLAN_BYTES = 256 * 1024 * 1024  # a 10,000-deployment plan is ~20 MB


class SavedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    only: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    replace: list[str] = Field(default_factory=list)
    destroy: bool = False

    @classmethod
    def of(cls, options: PlanOptions) -> SavedOptions:
        return cls(
            only=sorted(options.only),
            exclude=sorted(options.exclude),
            replace=sorted(options.replace),
            destroy=options.destroy,
        )

    def plan_options(self) -> PlanOptions:
        return PlanOptions(
            only=frozenset(self.only),
            exclude=frozenset(self.exclude),
            replace=frozenset(self.replace),
            destroy=self.destroy,
        )


class SeenDeployment(BaseModel):
    """A deployment as the plan saw it; any difference at apply time makes the plan stale."""

    model_config = ConfigDict(extra="forbid")

    id: str
    updated_at: datetime | None = None
    latest_revision_id: str | None = None


class SavedPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    plan: Plan
    lineage: str
    serial: int
    endpoint: str
    tenant_id: str | None = None
    config_path: str
    # The config's path relative to the plan file's directory (found first by apply).
    config_relative: str | None = None
    state_path: str
    state_dir: str
    options: SavedOptions = Field(default_factory=SavedOptions)
    seen: dict[str, SeenDeployment] = Field(default_factory=dict)
    config_digests: dict[str, str] = Field(default_factory=dict)
    # Keyed digests of the variables given as `--var`, `--var-file` or PLANNER_VAR_NAME at
    # plan time (a value may be a secret): apply must be given the same values
    # (`planner.plan.stale.variable_moves`).
    variables: dict[str, str] = Field(default_factory=dict)
    # The planner release that wrote the file (None: a release before this key), named
    # when a plan file of another format or shape is refused.
    planner_version: str | None = None
    seal: Seal | None = None


def config_digest(desired: DesiredDeployment) -> str:
    """sha256 of the non-secret part of a deployment's config (secrets are checked apart)."""
    body = {"managed": desired.managed(), "lifecycle": desired.lifecycle.model_dump(mode="json")}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def config_digests(plan: Plan, desired: Mapping[str, DesiredDeployment]) -> dict[str, str]:
    names = {change.name for change in plan.changes} & set(desired)
    return {name: config_digest(desired[name]) for name in sorted(names)}


def seen_deployments(plan: Plan, observed: Observed) -> dict[str, SeenDeployment]:
    """The live deployments the plan's changes are about, as seen now."""
    seen = {}
    for change in plan.changes:
        # a move's live deployment is read under its old address
        live = observed.by_name.get(change.moved_from or change.name)
        if live is not None:
            seen[change.name] = SeenDeployment(
                id=live.id,
                updated_at=live.updated_at,
                latest_revision_id=live.latest_revision_id,
            )
    return seen


def make_saved_plan(
    plan: Plan,
    doc: StateDocument,
    observed: Observed,
    *,
    config_path: str | os.PathLike[str],
    plan_path: str | os.PathLike[str],
    state_path: str | os.PathLike[str],
    state_dir: str | os.PathLike[str],
    options: PlanOptions,
    desired: Mapping[str, DesiredDeployment] | None = None,
    variables: Mapping[str, str] | None = None,
) -> SavedPlan:
    """The saved plan, not sealed yet (`seal_saved_plan`), to be written at PLAN_PATH;
    paths are made absolute, the config's also relative to PLAN_PATH's directory."""
    config = os.path.abspath(config_path)
    plan_dir = os.path.dirname(os.path.realpath(plan_path))  # where the file is written
    config_dir = os.path.realpath(os.path.dirname(config))
    return SavedPlan(
        plan=plan,
        lineage=doc.lineage,
        serial=doc.serial,
        endpoint=doc.endpoint,
        tenant_id=doc.tenant_id,
        config_path=config,
        config_relative=os.path.normpath(
            os.path.join(os.path.relpath(config_dir, plan_dir), os.path.basename(config))
        ),
        state_path=_state_address(state_path),
        state_dir=os.path.abspath(state_dir),
        options=SavedOptions.of(options),
        seen=seen_deployments(plan, observed),
        config_digests=config_digests(plan, desired or {}),
        variables=dict(variables or {}),
        planner_version=__version__,
    )


def _state_address(state: str | os.PathLike[str]) -> str:
    """A file state's absolute path (plans apply from any directory), a URL as it is."""
    return str(state) if is_postgres_url(str(state)) else os.path.abspath(state)


def plan_file_json_schema() -> dict[str, Any]:
    """The JSON Schema of a plan file (`schemas/plan.schema.json`): the JSON plan, and in a
    saved plan the `saved` section beside its keys (`--format json` output is valid too)."""
    schema = plan_json_schema()
    saved = SavedPlan.model_json_schema(mode="serialization")
    definitions = saved.pop("$defs")
    del definitions["Plan"], saved["properties"]["plan"]
    saved["properties"]["seal"] = {"$ref": "#/$defs/Seal"}  # always there in a file
    saved["required"] = [name for name in saved["required"] if name != "plan"] + ["seal"]
    saved["title"] = "Saved"
    saved["description"] = (
        "Only in a saved plan file (`planner plan --out`): what apply checks before "
        "executing it (seal, state lineage and serial, endpoint, deployments as seen)."
    )
    schema["$defs"] = {**schema.get("$defs", {}), **definitions}
    schema["properties"][SAVED_KEY] = saved
    return schema


def file_document(saved: SavedPlan) -> dict[str, Any]:
    """The plan file's JSON: the plan's keys, and `saved` beside them."""
    body = saved.plan.model_dump(mode="json")
    for key in KEYS_ADDED_AFTER.get(saved.plan.format_version, ()):
        body.pop(key, None)  # a plan of an older format has none: its seal covers none
    # a file of a release before `planner_version` has no such key: its seal covers none
    absent = {"planner_version"} if saved.planner_version is None else set()
    body[SAVED_KEY] = saved.model_dump(mode="json", exclude={"plan", *absent})
    return body


def sealed_content(saved: SavedPlan) -> bytes:
    """What the seal covers: the canonical JSON (sorted keys, no spaces) of the whole file
    but the seal, as apply reads it (so every value apply uses, and nothing else)."""
    document = file_document(saved.model_copy(update={"seal": None}))
    del document[SAVED_KEY]["seal"]
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def seal_saved_plan(saved: SavedPlan, key: bytes) -> SavedPlan:
    return saved.model_copy(update={"seal": make_seal(key, sealed_content(saved))})


def check_seal(saved: SavedPlan, key: bytes | None, source: str | os.PathLike[str]) -> None:
    """Raise PlanTamperedError unless SAVED is exactly what was sealed with KEY."""
    verify_seal(saved.seal, key, sealed_content(saved), source)


def saved_plan_json(saved: SavedPlan) -> str:
    return json.dumps(file_document(saved), indent=2, ensure_ascii=False) + "\n"


def plan_file_target(path: str | os.PathLike[str], known: Mapping[Path, str] | None = None) -> Path:
    """Where `plan --out PATH` may write: PATH's real path (a symlink is written
    through), either new (its folders are made) or an earlier saved plan. Anything
    else (the state file, a database, a device, a FIFO, a folder) is refused, before
    the plan is made, so a typo in --out never destroys a file; the hint says what it is
    (KNOWN names the files of the command by real path: `planner.plan.out_files`)."""
    given = Path(path)
    target = Path(os.path.realpath(given))
    if not os.path.lexists(target):
        return target
    kind = existing_kind(target, known or {})
    if kind is None:
        try:
            existing = _read_json(target)
        except PlanError:
            existing = None
        if isinstance(existing, dict) and SAVED_KEY in existing:
            return target
        kind = "a planner state" if is_state_shaped(existing) else None
    raise PlanError(
        f"{given} exists and is not a saved plan: not overwriting it",
        hint=out_hint(given, kind),
    )


def write_saved_plan(path: str | os.PathLike[str], saved: SavedPlan) -> None:
    """Write a sealed plan atomically (temp file, fsync, rename), mode 0600, to
    `plan_file_target(path)`."""
    if saved.seal is None:
        raise ValueError("only a sealed plan is written (seal_saved_plan)")
    target = plan_file_target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, saved_plan_json(saved))
    except OSError as error:
        raise PlanError(f"cannot write the plan file {path}: {os_reason(error)}") from None


def read_saved_plan(path: str | os.PathLike[str]) -> SavedPlan:
    """Read a plan file written by `write_saved_plan`; every failure names the file."""
    source = Path(path)
    raw = _read_json(source)
    extra = raw.pop(SAVED_KEY, None) if isinstance(raw, dict) else None
    if not isinstance(extra, dict):
        raise PlanError(
            f"{source} is not a saved plan (no `{SAVED_KEY}` section)",
            hint="write one with `planner plan --out FILE`; `--format json` output "
            "cannot be applied",
        )
    writer = extra.get("planner_version")
    written_by = writer if isinstance(writer, str) else None
    check_format_version(raw, str(source), written_by)
    try:
        return SavedPlan.model_validate({**extra, "plan": raw})
    except ValidationError as error:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in error.errors()[:10]
        ]
        raise PlanError(
            f"{source} is not a valid saved plan for this planner ({__version__}; "
            f"the file was written by {writer_text(written_by)})",
            details=problems,
            hint="it may come from another planner version: run `planner plan --out` again",
        ) from None


def _read_json(source: Path) -> Any:
    """The plan file's JSON, read bounded (a regular file, MAX_PLAN_BYTES, nesting)."""
    try:
        text = read_user_text(source, "plan file", PlanError, limit=MAX_PLAN_BYTES)
    except FileNotFoundError:
        raise PlanError(f"plan file not found: {source}") from None
    try:
        return parse_nested(json.loads, text, source, PlanError, limit=MAX_WRITTEN_NESTING)
    except json.JSONDecodeError as error:
        raise PlanError(
            f"plan file {source} is not valid JSON (line {error.lineno}: {error.msg})"
        ) from None
