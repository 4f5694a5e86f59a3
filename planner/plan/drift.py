"""Drift: what changed outside the planner since the last apply (recorded vs observed)."""

from __future__ import annotations

from collections.abc import Iterable

from planner.api.fields import ChangeClass, classify
from planner.api.models import Deployment
from planner.plan.managed_fields import observed_fields, observed_secrets
from planner.plan.model import Drift
from planner.plan.paths import flatten, is_clearable, is_ignored, normalize
from planner.secrets import SENSITIVE, secret_digest
from planner.state.records import RecordedDeployment


def deployment_drift(
    recorded: RecordedDeployment,
    observed: Deployment | None,
    *,
    ignore_changes: Iterable[str],
    digest_key: bytes,
) -> list[Drift]:
    """Drift of one recorded deployment; paths under `ignore_changes` are left alone."""
    if observed is None:
        return [Drift(name=recorded.name, path=None, recorded=recorded.id, observed=None)]
    ignore = tuple(ignore_changes)
    return field_drift(recorded, observed, ignore) + secret_drift(
        recorded, observed, ignore, digest_key
    )


def field_drift(
    recorded: RecordedDeployment, observed: Deployment, ignore: tuple[str, ...]
) -> list[Drift]:
    fields = {
        path: normalize(value)
        for path, value in flatten(recorded.managed).items()
        if classify(path) is not ChangeClass.READ_ONLY and not is_ignored(path, ignore)
    }
    # A null the API could not apply was never really managed: it cannot have drifted.
    fields = {path: v for path, v in fields.items() if v is not None or is_clearable(path)}
    seen = observed_fields(observed, fields)
    return [
        Drift(name=recorded.name, path=path, recorded=fields[path], observed=seen[path])
        for path in sorted(fields)
        if fields[path] != seen[path]
    ]


def secret_drift(
    recorded: RecordedDeployment, observed: Deployment, ignore: tuple[str, ...], key: bytes
) -> list[Drift]:
    """Secrets whose observed digest differs from the recorded one (added, removed, changed)."""
    if not recorded.secret_digests or "secrets" in ignore:
        return []
    values = observed_secrets(observed)
    drift = []
    for name in sorted(set(recorded.secret_digests) | set(values)):
        if is_ignored(f"secrets.{name}", ignore):
            continue
        before = recorded.secret_digests.get(name)
        now = secret_digest(key, name, values[name]) if name in values else None
        if before != now:
            drift.append(
                Drift(
                    name=recorded.name,
                    path=f"secrets.{name}",
                    recorded=SENSITIVE if before is not None else None,
                    observed=SENSITIVE if now is not None else None,
                )
            )
    return drift
