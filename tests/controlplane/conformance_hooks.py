"""Schemathesis hooks for the conformance run: the create/patch rules JSON Schema cannot
state (secret names unique within a body; resource_spec pairs such as min_scale <=
max_scale; value bounds inside free-form objects), taught to the generator instead,
through the server's own checks.

Loaded by `schemathesis.toml` (CLI runs from the repo root) and by
tests/controlplane/test_conformance.py.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from pydantic import ValidationError

from planner.api.models import ResourceSpec
from planner.api.rules import check_resource_spec
from planner.api.values import check_values


def has_duplicate_secret_names(body: Any) -> bool:
    """True when `body.secrets` names one secret twice (the server answers 422)."""
    secrets = body.get("secrets") if isinstance(body, dict) else None
    if not isinstance(secrets, list):
        return False
    names = [s["name"] for s in secrets if isinstance(s, dict) and isinstance(s.get("name"), str)]
    return len(names) != len(set(names))


def breaks_a_resource_pair(body: Any) -> bool:
    """True when `body.source_config.resource_spec` has a request over its limit or a
    minimum over its maximum (the server answers 422), per `check_resource_spec`."""
    config = body.get("source_config") if isinstance(body, dict) else None
    spec = config.get("resource_spec") if isinstance(config, dict) else None
    if not isinstance(spec, dict):
        return False
    try:
        parsed = ResourceSpec.model_validate(spec)
    except ValidationError:
        return False  # a shape problem: the schema's business, not a cross-field rule
    return bool(check_resource_spec(parsed))


@schemathesis.hook("filter_case")
def only_cross_field_valid_cases(context: schemathesis.HookContext, case: Any) -> bool:
    """Only cases whose body has unique secret names and ordered resource pairs (a case
    filter, not a body one: the coverage phase's boundary values skip body hooks)."""
    body = getattr(case, "body", None)
    return (
        not has_duplicate_secret_names(body)
        and not breaks_a_resource_pair(body)
        and not has_unbounded_free_form_value(body)
    )


def has_unbounded_free_form_value(body: Any) -> bool:
    """True when a value the server refuses sits where the schema cannot bound it: an
    integer beyond 64 bits inside a free-form object (e.g. a sidecar's `envFrom`), which
    the generator otherwise offers as schema-valid (the server answers 422)."""
    return isinstance(body, dict) and bool(check_values(body))
