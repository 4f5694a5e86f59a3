"""Routes under /v2/listeners: list and read in both modes, create, patch and delete on a
self-hosted server (`planner.controlplane.listeners` does the work)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse, Response

from planner.api.models import ErrorBody
from planner.api.other_models import Listener, ListenerCreate, ListenerList, ListenerPatch
from planner.controlplane.context import Context, RequestContext
from planner.controlplane.deployments import http_errors
from planner.controlplane.listeners import Forbidden, Listeners
from planner.controlplane.responses import AUTHENTICATED, INVALID, NOT_FOUND, Responses

router = APIRouter(responses=AUTHENTICATED, tags=["listeners"])

SELF_HOSTED_ONLY: Responses = {
    403: {
        "model": ErrorBody,
        "description": "A cloud-mode server (listener writes are self-hosted only), or no "
        "access to the workspace named by X-Tenant-Id.",
    }
}


def _listeners(ctx: RequestContext) -> Listeners:
    return Listeners(ctx.store, ctx.settings, ctx.tenant_id)


@contextmanager
def _http_errors() -> Iterator[None]:
    with http_errors():
        try:
            yield
        except Forbidden as exc:
            raise HTTPException(403, str(exc)) from None


@router.get("/v2/listeners", response_model=ListenerList, responses=INVALID)
def list_listeners(
    ctx: Context,
    limit: Annotated[int, Query(ge=1, le=100, description="Page size, 1..100.")] = 20,
    offset: Annotated[int, Query(ge=0, le=2**63 - 1, description="Where the page starts.")] = 0,
) -> JSONResponse:
    """One page of the workspace's listeners, oldest first; `offset` = next page."""
    return JSONResponse(_listeners(ctx).page(limit, offset))


@router.post(
    "/v2/listeners",
    status_code=201,
    response_model=Listener,
    responses={
        **INVALID,
        **SELF_HOSTED_ONLY,
        409: {"model": ErrorBody, "description": "The workspace has a listener of that compute."},
    },
)
def create_listener(body: ListenerCreate, ctx: Context) -> JSONResponse:
    """Create a listener (self-hosted): one per `compute_id` in the workspace."""
    with _http_errors():
        return JSONResponse(_listeners(ctx).create(body), status_code=201)


@router.get(
    "/v2/listeners/{listener_id}", response_model=Listener, responses={**INVALID, **NOT_FOUND}
)
def get_listener(listener_id: uuid.UUID, ctx: Context) -> JSONResponse:
    """One listener of the workspace."""
    with _http_errors():
        return JSONResponse(_listeners(ctx).get(str(listener_id)))


@router.patch(
    "/v2/listeners/{listener_id}",
    response_model=Listener,
    responses={**INVALID, **NOT_FOUND, **SELF_HOSTED_ONLY},
)
def patch_listener(listener_id: uuid.UUID, body: ListenerPatch, ctx: Context) -> JSONResponse:
    """Change a listener's `version` or `compute_config` (self-hosted; nulls leave a
    field as it is)."""
    with _http_errors():
        return JSONResponse(_listeners(ctx).patch(str(listener_id), body))


@router.delete(
    "/v2/listeners/{listener_id}",
    status_code=204,
    response_class=Response,
    responses={**INVALID, **NOT_FOUND, **SELF_HOSTED_ONLY},
)
def delete_listener(listener_id: uuid.UUID, ctx: Context) -> Response:
    """Delete a listener (self-hosted)."""
    with _http_errors():
        _listeners(ctx).delete(str(listener_id))
    return Response(status_code=204)
