"""Schemathesis hooks for the conformance run: the one create/patch rule JSON Schema
cannot state (secret names unique within a body), taught to the generator instead.

Loaded by `schemathesis.toml` (CLI runs from the repo root) and by
tests/controlplane/test_conformance.py.
"""

from __future__ import annotations

from typing import Any

import schemathesis


def has_duplicate_secret_names(body: Any) -> bool:
    """True when `body.secrets` names one secret twice (the server answers 422)."""
    secrets = body.get("secrets") if isinstance(body, dict) else None
    if not isinstance(secrets, list):
        return False
    names = [s["name"] for s in secrets if isinstance(s, dict) and isinstance(s.get("name"), str)]
    return len(names) != len(set(names))


@schemathesis.hook("filter_body")
def unique_secret_names(context: schemathesis.HookContext, body: Any) -> bool:
    """Generate only bodies whose secret names are unique."""
    return not has_duplicate_secret_names(body)
