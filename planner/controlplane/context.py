"""Per-request context of the local control plane: who is calling, in which workspace.

`get_context` is the FastAPI dependency every authenticated route takes. It checks the
key (`X-Api-Key`, else `Authorization: Bearer`), resolves the workspace (`X-Tenant-Id`)
and returns the store and settings with it.

Rules (PRODUCT.md, "Auth"):
- no key, or a key the server does not know: 401;
- `X-Tenant-Id` naming a workspace the key has no access to (or not a uuid at all): 403;
- a key spanning several workspaces without `X-Tenant-Id`: 403 "requires workspace
  specification"; a single-workspace key without it uses its one workspace.
Details never repeat the key that was sent.
"""

from __future__ import annotations

import functools
import hmac
import uuid
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import Store

# auto_error=False: we answer 401/403 ourselves, in the `{detail}` shape of the spec.
api_key_header = APIKeyHeader(name="X-Api-Key", auto_error=False, scheme_name="ApiKey")
tenant_header = APIKeyHeader(name="X-Tenant-Id", auto_error=False, scheme_name="TenantId")
bearer_scheme = HTTPBearer(auto_error=False, scheme_name="Bearer")


@dataclass(frozen=True)
class RequestContext:
    tenant_id: str
    api_key: str
    store: Store
    settings: ServerSettings

    def __repr__(self) -> str:  # the key must never reach a log line
        return f"RequestContext(tenant_id={self.tenant_id!r}, api_key='(sensitive)')"


def unauthorized(detail: str) -> HTTPException:
    return HTTPException(status_code=401, detail=detail, headers={"WWW-Authenticate": "Bearer"})


def presented_key(api_key: str | None, bearer: HTTPAuthorizationCredentials | None) -> str:
    """The key the caller sent: `X-Api-Key` wins over a bearer token; 401 if neither."""
    if api_key:
        return api_key
    if bearer is not None and bearer.credentials:
        return bearer.credentials
    raise unauthorized("Missing API key: send it in X-Api-Key or Authorization: Bearer <key>.")


def workspaces_of(key: str, api_keys: dict[str, list[str]]) -> list[str]:
    """The workspaces `key` may use; 401 for an unknown key (compared in constant time)."""
    found: list[str] | None = None
    for known, tenants in api_keys.items():
        if hmac.compare_digest(known.encode(), key.encode()):
            found = tenants
    if found is None:
        raise unauthorized("Invalid API key.")
    return [normalize_tenant(t) or t for t in found]


@functools.lru_cache(maxsize=1024)  # the keys' workspaces, normalized on every request
def normalize_tenant(value: str) -> str | None:
    """The canonical (lower-case, hyphenated) form of a workspace id; None if not a uuid."""
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        return None


def select_workspace(requested: str | None, allowed: list[str]) -> str:
    """The workspace of this request, from `X-Tenant-Id` and the key's workspaces."""
    if requested:
        tenant = normalize_tenant(requested)
        if tenant is None:
            raise HTTPException(403, "X-Tenant-Id is not a valid workspace id (a uuid).")
        if tenant not in allowed:
            raise HTTPException(403, f"The API key has no access to workspace {tenant}.")
        return tenant
    if len(allowed) == 1:
        return allowed[0]
    raise HTTPException(
        403,
        "This API key spans several workspaces: the request requires workspace "
        "specification (send X-Tenant-Id).",
    )


async def get_context(
    request: Request,
    api_key: Annotated[str | None, Security(api_key_header)],
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)],
    tenant: Annotated[str | None, Security(tenant_header)],
) -> RequestContext:
    """Authenticate the caller and resolve its workspace (401/403 otherwise).

    Async although it awaits nothing: a sync dependency costs a worker-thread hop per
    request, as much CPU as a create's SQL."""
    settings: ServerSettings = request.app.state.settings
    key = presented_key(api_key, bearer)
    allowed = workspaces_of(key, settings.api_keys)
    tenant_id = select_workspace(tenant, allowed)
    return RequestContext(
        tenant_id=tenant_id, api_key=key, store=request.app.state.store, settings=settings
    )


Context = Annotated[RequestContext, Depends(get_context)]
