"""The error responses of the local control plane, as the OpenAPI document lists them.

One place for every status a route can answer besides its success, so the document
says what the server does (checked by the schemathesis run in
tests/controlplane/test_conformance.py). All bodies are `{detail: str}` but the 422's.
"""

from __future__ import annotations

from typing import Any

from planner.api.models import ErrorBody
from planner.api.support_models import HTTPValidationError

Responses = dict[int | str, dict[str, Any]]


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


# Every route behind `get_context`: auth runs before the route, faults before routing.
AUTHENTICATED: Responses = {
    400: _error("Bad request: a body that is not JSON, or conflicting auth headers."),
    401: _error("Missing or invalid API key."),
    403: _error("No access to the workspace named by X-Tenant-Id (or none named)."),
    429: _error("Rate limit exceeded (`planner serve --rate-limit`); see Retry-After."),
    503: _error("Injected fault (`planner serve --error-rate`)."),
}
NOT_FOUND: Responses = {404: _error("Not found (or in another workspace).")}
INVALID: Responses = {422: {"model": HTTPValidationError, "description": "Validation error."}}
TOO_LARGE: Responses = {413: _error("Request body too large.")}
