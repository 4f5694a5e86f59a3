"""Routes for OAuth providers and repository integrations, from the seed data.

The data is read once per server (`app.state.catalog`, see `planner.controlplane.seed`);
each workspace sees the entries not scoped to other workspaces. The integration routes
differ by dialect (`integrations_router`): their paths, and the type of their ids.
"""

from __future__ import annotations

import uuid

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

from planner.api.models import ErrorBody
from planner.api.other_models import Integration, OAuthProvider, Repository
from planner.api.vocabulary import Dialect, integration_path
from planner.controlplane.context import Context
from planner.controlplane.responses import AUTHENTICATED, INVALID
from planner.controlplane.seed import Catalog

router = APIRouter(responses=AUTHENTICATED)


class NumberedIntegration(BaseModel):
    """An integration as the service sends it: its installation id is a number (a
    response only: not a wire model a request is read with)."""

    id: str
    installation_id: int
    name: str


class NumberedRepository(BaseModel):
    """A repository as the service sends it: its id is a number."""

    host_integration_id: str
    id: int
    name: str
    owner: str
    url: str
    default_branch: str


def numeric_id_problems(catalog: Catalog) -> list[str]:
    """The seed's integration and repository ids that are not whole numbers (the service
    dialect sends them as integers)."""
    problems = []
    for index, integration in enumerate(catalog.seed.integrations):
        if not integration.installation_id.isdigit():
            problems.append(f"integrations.{index}.installation_id: must be a whole number")
        for at, repository in enumerate(integration.repositories):
            if not repository.id.isdigit():
                where = f"integrations.{index}.repositories.{at}.id"
                problems.append(f"{where}: must be a whole number")
    return problems


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


def integrations_router(dialect: Dialect) -> APIRouter:
    """The repository-integration routes in DIALECT's paths and id types: the seed's
    `/v1/integrations/git_host/...` with string ids, or the service's
    `/v1/integrations/github/...` and its `forge/github` twins with integer ids (and an
    empty list for an integration the workspace does not have: the service's document
    lists no 404 there)."""
    router = APIRouter(responses=AUTHENTICATED, tags=["integrations"])
    if dialect is Dialect.SEED:
        _seed_integration_routes(router)
    else:
        for forge in (False, True):
            _service_integration_routes(router, forge=forge)
    return router


def _seed_integration_routes(router: APIRouter) -> None:
    @router.get(integration_path(Dialect.SEED, "install"), response_model=list[Integration])
    def list_integrations(request: Request, ctx: Context) -> list[Integration]:
        """List the hosted-repository integrations installed for the workspace."""
        return catalog_of(request).integrations_for(ctx.tenant_id)

    @router.get(
        integration_path(Dialect.SEED, "{integration_id}/repos"),
        response_model=list[Repository],
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


def _service_integration_routes(router: APIRouter, *, forge: bool) -> None:
    """One pair of the service's routes (FORGE: the `forge/` twins)."""

    @router.get(
        integration_path(Dialect.SERVICE, "install", forge=forge),
        response_model=list[NumberedIntegration],
    )
    def list_integrations(request: Request, ctx: Context) -> list[NumberedIntegration]:
        """List the repository integrations installed for the workspace."""
        return [
            NumberedIntegration(id=i.id, installation_id=int(i.installation_id), name=i.name)
            for i in catalog_of(request).integrations_for(ctx.tenant_id)
        ]

    @router.get(
        integration_path(Dialect.SERVICE, "{integration_id}/repos", forge=forge),
        response_model=list[NumberedRepository],
        responses=INVALID,
    )
    def list_repositories(
        integration_id: uuid.UUID, request: Request, ctx: Context
    ) -> list[NumberedRepository]:
        """List the repositories of one repository integration (none for an integration
        the workspace does not have)."""
        found = catalog_of(request).repositories_of(str(integration_id), ctx.tenant_id)
        return [
            NumberedRepository.model_validate({**r.model_dump(), "id": int(r.id)})
            for r in found or []
        ]
