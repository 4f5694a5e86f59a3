"""Adopting a fleet (`planner import --all`): observed deployments -> the config that
declares them as they are. Pure: no I/O, secret values never leave this module.

Invariants of `generated_config`:
- a deployment's table holds only the fields set on it (no nulls, no read-only fields);
- a `resource_spec` field every deployment sets to the same value moves to `[defaults]`
  (2 or more deployments). Only those: they are valid for every source, so a deployment
  of another source added later does not inherit a field its source rejects;
- each secret becomes `{ env = "VAR" }`: VAR is the secret's own name when every
  deployment holding that secret holds the same value, else `<DEPLOYMENT>_<SECRET>`
  (upper case, `-` as `_`), so setting the variables reproduces every value;
- `environ` maps each VAR to its value, only to load the result once and record the
  state (it is never written anywhere);
- the words the dialects spell differently are the given spelling's (the config's that
  adopts them, else the server's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from planner.api.fields import ChangeClass, classify
from planner.api.models import Deployment, is_being_deleted
from planner.api.rules import FIELD_SOURCES, is_valid_name
from planner.api.vocabulary import SEED_SPELLING, Spelling
from planner.command_lines import suggested_command
from planner.errors import StateError
from planner.plan.managed_fields import observed_doc, observed_secrets
from planner.plan.paths import RESOURCE_SPEC, flatten, nest, normalize

SHAREABLE_PREFIX = RESOURCE_SPEC + "."


@dataclass
class GeneratedConfig:
    """The config's data (`defaults`, `deployments`), the variables it reads, and values."""

    defaults: dict[str, Any]
    deployments: dict[str, dict[str, Any]]
    variables: list[str] = field(default_factory=list)
    environ: dict[str, str] = field(default_factory=dict, repr=False)


def generated_config(
    observed: Sequence[Deployment], spelling: Spelling = SEED_SPELLING
) -> GeneratedConfig:
    """The config declaring OBSERVED (deployments with distinct, valid names) as they are,
    in SPELLING's words."""
    fields = {d.name: adoptable_fields(d) for d in observed}
    shared = shared_fields(fields.values()) if len(fields) > 1 else {}
    secret_vars, environ = secret_variables(observed)
    deployments = {}
    for deployment in sorted(observed, key=lambda d: d.name):
        own = {p: v for p, v in fields[deployment.name].items() if p not in shared}
        table = spelling.body(nest(own))
        if secret_vars[deployment.name]:
            table["secrets"] = {
                name: {"env": var} for name, var in sorted(secret_vars[deployment.name].items())
            }
        deployments[deployment.name] = table
    defaults = spelling.body(nest(shared))
    return GeneratedConfig(defaults, deployments, sorted(environ), environ)


def adoptable_fields(deployment: Deployment) -> dict[str, Any]:
    """Field path -> value of every field set on DEPLOYMENT that a config can declare
    (not a default the service echoes for a field its source may not set)."""
    out = {}
    for path, value in flatten(observed_doc(deployment)).items():
        owners = FIELD_SOURCES.get(tuple(path.split(".")))
        declarable = (
            path != "name"
            and classify(path) is not ChangeClass.READ_ONLY
            and (owners is None or deployment.source in owners)
        )
        if declarable and normalize(value) is not None:
            out[path] = value
    return out


def shared_fields(tables: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The resource_spec fields every table sets to one same value."""
    tables = list(tables)
    first, *rest = tables
    return {
        path: value
        for path, value in first.items()
        if path.startswith(SHAREABLE_PREFIX) and all(t.get(path, _MISSING) == value for t in rest)
    }


_MISSING = object()


def secret_variables(
    observed: Sequence[Deployment],
) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Deployment -> secret -> variable name, and variable -> value (see the module doc)."""
    values: dict[str, set[str]] = defaultdict(set)
    for deployment in observed:
        for name, value in observed_secrets(deployment).items():
            values[name].add(value)
    chosen: dict[str, dict[str, str]] = {}
    environ: dict[str, str] = {}
    for deployment in observed:
        chosen[deployment.name] = {}
        for name, value in observed_secrets(deployment).items():
            shared = len(values[name]) == 1
            var = name if shared else f"{env_name(deployment.name)}_{name}"
            chosen[deployment.name][name] = var
            environ[var] = value
    return chosen, environ


def env_name(deployment_name: str) -> str:
    """A deployment name as part of an environment variable name (`a-b` -> `A_B`)."""
    return deployment_name.upper().replace("-", "_")


def adoptable(observed: Iterable[Deployment], name_contains: str | None) -> list[Deployment]:
    """The deployments to adopt: valid names containing NAME_CONTAINS (if given)."""
    return [
        d
        for d in observed
        if is_valid_name(d.name) and (not name_contains or name_contains in d.name)
    ]


def split_unmanaged(
    listed: Iterable[Deployment],
    managed_ids: Set[str],
    declared: Set[str],
    name_contains: str | None,
) -> tuple[list[Deployment], list[str]]:
    """Of the LISTED deployments of a workspace, the ones `import --all` adopts (no state
    manages them, none is being deleted, the config does not DECLARE them, `adoptable`),
    and the names left out because the config declares them."""
    unmanaged = [d for d in listed if not is_being_deleted(d.status) and d.id not in managed_ids]
    skipped = sorted(d.name for d in unmanaged if d.name in declared)
    kept = adoptable((d for d in unmanaged if d.name not in declared), name_contains)
    return kept, skipped


def check_adoptable(name: str, deployment: Deployment) -> None:
    """StateError unless DEPLOYMENT may be imported as the config's deployment NAME: it
    carries that remote name and is not being deleted."""
    if deployment.name != name:
        raise StateError(
            f"deployment {deployment.id} is named {deployment.name!r}, not {name!r}",
            hint=f"names cannot change: import it under its own name "
            f"(`{suggested_command('import', deployment.name, deployment.id)}`, with "
            f'[deployments.{deployment.name}] in the config, or `name = "{deployment.name}"` '
            "in the deployment's table)",
        )
    if is_being_deleted(deployment.status):
        raise StateError(f"deployment {deployment.id} ({name}) is being deleted")


def duplicate_names(observed: Iterable[Deployment]) -> list[str]:
    """Names held by more than one deployment (the config's key must be unique)."""
    seen: dict[str, int] = defaultdict(int)
    for deployment in observed:
        seen[deployment.name] += 1
    return sorted(name for name, count in seen.items() if count > 1)
