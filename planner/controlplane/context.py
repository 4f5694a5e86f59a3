"""Per-request context of the local control plane: who is calling, in which workspace.

`get_context` is the FastAPI dependency every authenticated route takes. It checks the
key (`X-Api-Key` or `Authorization: Bearer`), resolves the workspace (`X-Tenant-Id`) and
returns the store and settings with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings
from planner.controlplane.store import Store


@dataclass(frozen=True)
class RequestContext:
    tenant_id: str
    api_key: str
    store: Store
    settings: ServerSettings


def get_context(request: Request) -> RequestContext:
    """Placeholder until auth lands: everything is the default workspace."""
    app_state = request.app.state
    return RequestContext(
        tenant_id=DEFAULT_TENANT_ID,
        api_key="",
        store=app_state.store,
        settings=app_state.settings,
    )
