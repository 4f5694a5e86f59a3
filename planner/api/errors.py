"""Errors of the control-plane client: one hierarchy under `planner.errors.ApiError`.

Every error names the method and the API path (`PATCH /v2/deployments/<id> failed: 400
...`) and carries the HTTP status and the server's `detail`. Nothing here ever sees the
API key: messages are built from the method, the path and the response body only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx2
from pydantic import ValidationError

from planner.errors import ApiError

MAX_TEXT_DETAIL = 300


class BadRequestError(ApiError):
    """400: a rule was broken (e.g. an unmodifiable field)."""


class AuthError(ApiError):
    """401/403: the key is wrong or has no access to the workspace."""


class NotFoundError(ApiError):
    """404: the deployment (or revision, integration) does not exist."""


class ConflictError(ApiError):
    """409: e.g. a deployment of that name already exists; the caller may adopt it."""


class ValidationFailedError(ApiError):
    """422: the body or query was invalid; `problems` holds every `(loc, msg)`."""


class RateLimitedError(ApiError):
    """429: too many requests; `retry_after` is the server's `Retry-After` in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(ApiError):
    """5xx: the control plane failed."""


class ConnectionFailedError(ApiError):
    """No response came: connection refused, reset or timed out."""


def dotted_loc(loc: Sequence[object]) -> str:
    """`["body", "source_config", "repo_url"]` -> `source_config.repo_url`."""
    parts = [str(part) for part in loc]
    if len(parts) > 1 and parts[0] == "body":
        parts = parts[1:]
    return ".".join(parts) or "(request)"


def _body_detail(response: httpx2.Response) -> object:
    try:
        body = response.json()
    except (ValueError, RecursionError):
        text = response.text.strip()
        return text[:MAX_TEXT_DETAIL] or None
    return body.get("detail") if isinstance(body, dict) else body


def _validation_problems(detail: object) -> list[tuple[str, str]]:
    if not isinstance(detail, list):
        return []
    problems = []
    for item in detail:
        if isinstance(item, dict):
            problems.append((dotted_loc(item.get("loc") or []), str(item.get("msg", ""))))
    return problems


def _retry_after(response: httpx2.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _error_class(status: int) -> type[ApiError]:
    by_status: dict[int, type[ApiError]] = {
        400: BadRequestError,
        401: AuthError,
        403: AuthError,
        404: NotFoundError,
        409: ConflictError,
        422: ValidationFailedError,
        429: RateLimitedError,
    }
    if status >= 500:
        return ServerError
    return by_status.get(status, ApiError)


TENANT_SETTING = "PLANNER_TENANT_ID or [control_plane].tenant_id"
KEY_HINT = "check PLANNER_API_KEY: the control plane refused the key"


def _hint(status: int, detail: object) -> str | None:
    """The way out of a 401/403 that fits its detail: only a key that spans several
    workspaces (`requires workspace specification`) or a malformed workspace id is about
    the tenant; anything else (an invalid key, `Forbidden`) is about the key."""
    text = str(detail).lower()
    if status not in (401, 403):
        return None
    if status == 403 and "workspace specification" in text:
        return f"the API key spans several workspaces: set {TENANT_SETTING} to choose one"
    if status == 403 and "valid workspace id" in text:
        return f"check {TENANT_SETTING}: a workspace id is a uuid"
    if status == 403 and "no access to workspace" in text:
        return f"{KEY_HINT} for that workspace (or {TENANT_SETTING} names another one)"
    return KEY_HINT


def error_from_response(method: str, path: str, response: httpx2.Response) -> ApiError:
    """The error for a non-2xx response to `method path`."""
    status = response.status_code
    detail = _body_detail(response)
    problems = _validation_problems(detail) if status == 422 else []
    summary = "validation failed" if problems else str(detail or response.reason_phrase)
    message = f"{method} {path} failed: {status} {summary}".rstrip()
    kwargs: dict[str, Any] = {
        "status": status,
        "detail": detail,
        "problems": problems,
        "hint": _hint(status, detail),
    }
    if status == 429:
        return RateLimitedError(message, retry_after=_retry_after(response), **kwargs)
    return _error_class(status)(message, **kwargs)


def connection_error(method: str, path: str, base_url: str, exc: Exception) -> ApiError:
    """The error for a request that got no response (the cause's text never holds the key)."""
    reason = "timed out" if isinstance(exc, httpx2.TimeoutException) else "could not connect"
    cause = str(exc) or type(exc).__name__
    return ConnectionFailedError(
        f"{method} {path} failed: {reason} ({cause})",
        hint=f"is the control plane reachable at {base_url}?",
    )


def is_too_deep_for_pydantic(error: ValidationError) -> bool:
    """Whether pydantic refused a body only for its nesting (its JSON parser's limit)."""
    return any("recursion" in str(e["msg"]).lower() for e in error.errors())


def unexpected_body(method: str, path: str, status: int, problem: str) -> ApiError:
    """A 2xx whose body does not have the documented shape."""
    return ApiError(f"{method} {path} returned an unexpected body ({status}): {problem}")
