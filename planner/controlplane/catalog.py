"""Routes for OAuth providers, repository integrations and listeners, from the seed data.

The data is read once per server (`app.state.catalog`, see `planner.controlplane.seed`);
each workspace sees the entries not scoped to other workspaces.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request

from planner.api.models import ErrorBody
from planner.api.other_models import Integration, Listener, ListenerList, OAuthProvider, Repository
from planner.controlplane.context import Context
from planner.controlplane.responses import AUTHENTICATED, INVALID, NOT_FOUND
from planner.controlplane.seed import Catalog

router = APIRouter(responses=AUTHENTICATED)


def catalog_of(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


@router.get(
    "/v2/auth/providers",
    response_model=list[OAuthProvider],
    tags=["auth"],
)
def list_oauth_providers(request: Request, ctx: Context) -> list[OAuthProvider]:
    """List the OAuth providers configured for the workspace."""
    return catalog_of(request).providers_for(ctx.tenant_id)


@router.get(
    "/v1/integrations/git_host/install",
    response_model=list[Integration],
    tags=["integrations"],
)
def list_integrations(request: Request, ctx: Context) -> list[Integration]:
    """List the hosted-repository integrations installed for the workspace."""
    return catalog_of(request).integrations_for(ctx.tenant_id)


@router.get(
    "/v1/integrations/git_host/{integration_id}/repos",
    response_model=list[Repository],
    tags=["integrations"],
    responses={**INVALID, 404: {"model": ErrorBody, "description": "Unknown integration"}},
)
def list_repositories(
    integration_id: uuid.UUID, request: Request, ctx: Context
) -> list[Repository]:
    """List the repositories of one hosted-repository integration."""
    repositories = catalog_of(request).repositories_of(str(integration_id), ctx.tenant_id)
    if repositories is None:
        raise HTTPException(404, f"Integration {integration_id} not found.")
    return repositories


@router.get(
    "/v2/listeners",
    response_model=ListenerList,
    tags=["listeners"],
    responses=INVALID,
)
def list_listeners(
    request: Request,
    ctx: Context,
    limit: Annotated[int, Query(ge=1, le=100, description="Page size, 1..100.")] = 20,
    offset: Annotated[int, Query(ge=0, le=2**63 - 1, description="Where the page starts.")] = 0,
) -> ListenerList:
    """One page of the workspace's listeners; `offset` = next page."""
    listeners = catalog_of(request).listeners_for(ctx.tenant_id)[offset : offset + limit]
    return ListenerList(resources=listeners, offset=offset + len(listeners))


@router.get(
    "/v2/listeners/{listener_id}",
    response_model=Listener,
    tags=["listeners"],
    responses={**INVALID, **NOT_FOUND},
)
def get_listener(listener_id: uuid.UUID, request: Request, ctx: Context) -> Listener:
    """One listener of the workspace."""
    for listener in catalog_of(request).listeners_for(ctx.tenant_id):
        if listener.id == str(listener_id):
            return listener
    raise HTTPException(404, f"Listener {listener_id} not found.")
