"""Rules the local control plane enforces beyond the wire models' shapes.

Problems are `(loc, message)` pairs as in `planner.api.rules`; the routes turn them into
422 `HTTPValidationError` entries (`loc` prefixed with "body" / "query") or, for a PATCH
that conflicts with the stored deployment, into one 409 `{detail}` naming every field.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from planner.api.models import DeploymentCreate, Secret, Source
from planner.api.rules import (
    SOURCES_BY_MODE,
    Mode,
    Problem,
    check_mode,
    check_name,
    check_resource_numbers,
    check_source_rules,
    is_env_var_name,
)
from planner.api.values import check_values
from planner.api.vocabulary import GIT_SOURCE
from planner.controlplane.settings import ServerSettings

UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# A comma-separated uuid list as a query accepts it: spaces around items, blank items
# skipped. Only ' ' counts as a space, so the OpenAPI pattern means the same to every
# regex engine (`\s` does not).
UUID_LIST_PATTERN = f"^ *({UUID_PATTERN} *)?(, *({UUID_PATTERN} *)?)*$"

# Sources whose create must already be complete; internal_* are created empty by the
# real client and receive their image or tarball in a later PATCH.
COMPLETE_ON_CREATE = frozenset({GIT_SOURCE, Source.EXTERNAL_DOCKER.value})


def check_secret_names(secrets: Iterable[Secret], where: tuple[str, ...]) -> list[Problem]:
    """Names become environment variables: valid ones, as the config requires. A name
    given twice is not refused: the last value wins (`patching.unique_secrets`)."""
    return [
        ((*where, index, "name"), "must be a valid environment variable name")
        for index, secret in enumerate(secrets)
        if not is_env_var_name(secret.name)
    ]


def create_problems(body: DeploymentCreate, settings: ServerSettings) -> list[Problem]:
    """Every problem of a create body, all at once."""
    wire = body.model_dump(mode="json", exclude_none=True)
    # Values past the shared bounds would break every later answer that includes them.
    problems = check_values(body.model_dump(exclude_none=True))
    problems += check_name(body.name)
    problems += check_resource_numbers(body.source_config.resource_spec)
    problems += check_mode(body.source, settings.mode)
    complete = body.source in COMPLETE_ON_CREATE
    problems += check_source_rules(wire, body.source, require_complete=complete)
    problems += check_secret_names(body.secrets, ("secrets",))
    return problems


def raw_create_problems(raw: Any, settings: ServerSettings) -> list[Problem]:
    """The rule problems of a create body that failed its shape checks: so one 422 still
    lists every problem (a bad name next to a mistyped field), not only the shape ones."""
    if not isinstance(raw, Mapping):
        return []
    problems: list[Problem] = []
    if isinstance(raw.get("name"), str):
        problems += check_name(raw["name"])
    source = raw.get("source")
    if isinstance(source, str) and source in {s.value for s in Source}:  # may be a {} or []
        problems += check_mode(source, settings.mode)
        complete = source in COMPLETE_ON_CREATE
        problems += check_source_rules(raw, source, require_complete=complete)
    return problems


def patch_source_problems(wire: Mapping[str, Any], settings: ServerSettings) -> list[Problem]:
    """A PATCH body's own per-source rules, whatever deployment it meets: its `source`
    (when given) is one of the mode's, and its fields belong to one source of the mode
    (that one, when given). The OpenAPI document says the same (`patch_schema`)."""
    source = wire.get("source")
    if source is not None:
        return check_mode(source, settings.mode) or check_source_rules(
            wire, source, require_complete=False
        )
    candidates = sorted(SOURCES_BY_MODE[Mode(settings.mode)])
    per_source = [check_source_rules(wire, s, require_complete=False) for s in candidates]
    return [] if any(not problems for problems in per_source) else per_source[0]


def merged_problems(merged: Mapping[str, Any], source: str) -> list[Problem]:
    """Rules on a deployment as a PATCH would leave it."""
    complete = source in COMPLETE_ON_CREATE
    return check_source_rules(merged, source, require_complete=complete)


def validation_errors(problems: Iterable[Problem], where: str = "body") -> list[dict[str, Any]]:
    """422 entries `{loc, msg, type}`, one per problem."""
    return [
        {
            "loc": [where, *loc],
            "msg": msg,
            "type": "value_error",
        }
        for loc, msg in problems
    ]


def describe(problems: Iterable[Problem]) -> str:
    """One `{detail}` line naming every field (dotted path) and what is wrong with it."""
    return "; ".join(f"{'.'.join(map(str, loc))}: {msg}" for loc, msg in problems)


def parse_uuid_list(raw: str | None, param: str) -> tuple[list[str] | None, list[Problem]]:
    """A comma-separated list of uuids (blank items skipped); None when none is given."""
    if raw is None or not raw.replace(",", "").strip():
        return None, []
    ids: list[str] = []
    problems: list[Problem] = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        try:
            ids.append(str(uuid.UUID(item)))
        except ValueError:
            problems.append(((param,), f"'{item}' is not a valid UUID"))
    return ids, problems
