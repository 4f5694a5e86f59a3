"""Routes under /v2/deployments (and the local-only tracing project listing).

HTTP only: parameters in, `service.Deployments` does the work, its exceptions become
400 / 404 / 409 `{detail}` or 422 `HTTPValidationError`. A PATCH changing an
unmodifiable field (read-only in the document's PATCH body) is 400, as the real service
answers; one the document accepts but the stored deployment refuses (a field of another
source than its own, a rule the merged deployment would break) is 409: the body
conflicts with the resource's current state.

The routes an apply calls per deployment (create, list, get, PATCH, revision) are `async`
although they await nothing: their store work is a few hundred microseconds under the
store's one lock, and a sync route costs a worker-thread hop per request, a third of a
create's CPU on the server.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from planner.api.models import (
    BulkDeleteResult,
    Deployment,
    DeploymentCreate,
    DeploymentList,
    DeploymentType,
    ErrorBody,
    Revision,
    RevisionCreate,
    RevisionList,
    RevisionStatus,
)
from planner.api.other_models import HTTPValidationError
from planner.api.rules import Problem, check_resource_numbers
from planner.api.values import check_values
from planner.api.vocabulary import Dialect
from planner.controlplane.context import RequestContext, get_context
from planner.controlplane.patching import PatchBody, PatchConflict, PatchRejected
from planner.controlplane.responses import AUTHENTICATED, INVALID, NOT_FOUND, TOO_LARGE
from planner.controlplane.service import Conflict, Deployments, NotFound, Refused
from planner.controlplane.store import DeploymentFilter
from planner.controlplane.validation import (
    UUID_LIST_PATTERN,
    check_secret_names,
    create_problems,
    parse_uuid_list,
    patch_source_problems,
    validation_errors,
)

router = APIRouter(responses=AUTHENTICATED)

Context = Annotated[RequestContext, Depends(get_context)]
Limit = Annotated[int, Query(ge=1, le=100, description="Page size, 1..100.")]
# The upper bound is SQLite's largest integer: beyond it OFFSET cannot be bound (was a 500).
Offset = Annotated[int, Query(ge=0, le=2**63 - 1, description="Where the page starts.")]
UuidList = Annotated[
    str | None, Query(pattern=UUID_LIST_PATTERN, description="Comma-separated uuids.")
]
ERRORS = {**NOT_FOUND, **INVALID}
_STATUS = "|".join(s.value for s in RevisionStatus)
STATUS_LIST_PATTERN = rf"^({_STATUS})(,({_STATUS}))*$"
# The seed dialect refuses a status it does not know (422, the pattern in its document);
# the service's document takes any string, and an unknown status matches no revision.
StatusList = Annotated[
    str | None,
    Query(
        description="Comma-separated revision statuses; only revisions in one of them.",
        json_schema_extra={"pattern": STATUS_LIST_PATTERN},
    ),
]


def _deployments(ctx: RequestContext) -> Deployments:
    return Deployments(ctx.store, ctx.settings, ctx.tenant_id)


def json_text(text: str, status_code: int = 200) -> Response:
    """A JSON response of text already written (as a `JSONResponse` would write it)."""
    return Response(text, status_code=status_code, media_type="application/json")


def _invalid(problems: list[Problem], where: str = "body") -> RequestValidationError:
    return RequestValidationError(validation_errors(problems, where))


@contextmanager
def http_errors() -> Iterator[None]:
    """Map the service's failures to HTTP responses."""
    try:
        yield
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None
    except Conflict as exc:
        raise HTTPException(409, str(exc)) from None
    except PatchConflict as exc:
        raise HTTPException(409, exc.detail) from None
    except PatchRejected as exc:
        raise HTTPException(400, exc.detail) from None
    except Refused as exc:
        raise HTTPException(400, str(exc)) from None


@router.post(
    "/v2/deployments",
    status_code=201,
    response_model=Deployment,
    responses={
        **INVALID,
        **TOO_LARGE,
        409: {"model": ErrorBody, "description": "Name taken in this workspace."},
    },
)
async def create_deployment(body: DeploymentCreate, ctx: Context) -> Response:
    """Create a deployment, its first revision and its tracing project.

    A secret name given twice keeps the last value (one environment variable per name).
    The pairs of `resource_spec` (a minimum and its maximum, a request and its limit) are
    stored as given, not compared: the planner refuses a config that reverses one."""
    return json_text(created(body, ctx), status_code=201)


def created(body: DeploymentCreate, ctx: RequestContext, *, batched: bool = False) -> str:
    """The create route's work (also `hot_routes`', BATCHED): the new deployment's JSON
    text."""
    problems = create_problems(body, ctx.settings)
    if problems:
        raise _invalid(problems)
    with http_errors():
        return _deployments(ctx).create(body, batched=batched)


@router.get("/v2/deployments", response_model=DeploymentList, responses=ERRORS)
async def list_deployments(
    ctx: Context,
    limit: Limit = 20,
    offset: Offset = 0,
    name_contains: str | None = None,
    status: str | None = None,
    remote_reconciled: bool | None = None,
    tag_value_ids: UuidList = None,
    image_version: str | None = None,
    deployment_type: DeploymentType | None = None,
    deployment_ids: UuidList = None,
) -> Response:
    """One page of the workspace's deployments, oldest first; `offset` = next page."""
    tags, tag_problems = parse_uuid_list(tag_value_ids, "tag_value_ids")
    where = DeploymentFilter(
        name_contains=name_contains,
        status=status,
        image_version=image_version,
        deployment_type=deployment_type,
        # Local deployments are never remote-reconciled and carry no tags.
        match_nothing=bool(remote_reconciled) or bool(tags),
    )
    return json_text(listed(ctx, where, deployment_ids, limit, offset, tag_problems))


def listed(
    ctx: RequestContext,
    where: DeploymentFilter,
    deployment_ids: str | None,
    limit: int,
    offset: int,
    problems: list[Problem] | None = None,
) -> str:
    """The list route's work (also `hot_routes`'): the page's JSON text, WHERE narrowed to
    the comma-separated DEPLOYMENT_IDS (PROBLEMS: of the other parameters)."""
    where.deployment_ids, id_problems = parse_uuid_list(deployment_ids, "deployment_ids")
    if id_problems or problems:
        raise _invalid(id_problems + (problems or []), "query")
    return _deployments(ctx).list_page(where, limit, offset)


@router.delete(
    "/v2/deployments",
    response_model=BulkDeleteResult,
    responses={**ERRORS, 207: {"model": BulkDeleteResult, "description": "Some failed."}},
)
def delete_deployments(
    ctx: Context,
    deployment_ids: Annotated[list[uuid.UUID], Query(min_length=1, max_length=100)],
) -> JSONResponse:
    """Start deleting deployments; 207 when some are already being deleted."""
    with http_errors():
        result = _deployments(ctx).delete([str(i) for i in deployment_ids])
    return JSONResponse(result, status_code=207 if result["failed"] else 200)


@router.get("/v2/deployments/{deployment_id}", response_model=Deployment, responses=ERRORS)
async def get_deployment(deployment_id: uuid.UUID, ctx: Context) -> Response:
    """The deployment, with its secrets' values."""
    with http_errors():
        return json_text(_deployments(ctx).get(str(deployment_id)))


@router.patch(
    "/v2/deployments/{deployment_id}",
    response_model=Deployment,
    responses={
        **ERRORS,
        **TOO_LARGE,
        400: {
            "model": ErrorBody,
            "description": "An unmodifiable field (read-only in this body: `name`, `source`, "
            "an immutable `source_config` field) with another value than the deployment's "
            "(the detail names it; the same value is a no-op), or a body that is not JSON.",
        },
        409: {
            "model": ErrorBody,
            "description": "The deployment is being deleted, or the body conflicts with its "
            "current state (the detail names the field): a field of another source than the "
            "deployment's, or a rule the merged deployment would break (`build_on_push` "
            "true beside a stored tag `repo_ref`).",
        },
        422: {
            "model": HTTPValidationError,
            "description": "Validation error: what the body breaks whatever it meets "
            "(shapes, bounds, fields of two sources, `build_on_push` true beside a tag "
            "`repo_ref`).",
        },
    },
)
def patch_deployment(deployment_id: uuid.UUID, body: PatchBody, ctx: Context) -> Response:
    """Merge a PATCH; ONE new revision when any new-revision field changes.

    Nulls are ignored; `secrets` as on create (the last value of a name wins), `[]`
    keeps them; a `resource_spec` replaces the stored one wholesale, its pairs not
    compared."""
    """Merge a PATCH; ONE new revision when any new-revision field changes."""
    problems = check_values(body.model_dump(exclude_none=True))
    problems += patch_source_problems(body.model_dump(mode="json", exclude_none=True), ctx.settings)
    problems += check_secret_names(body.secrets or [], ("secrets",))
    if body.source_config is not None:
        problems += check_resource_numbers(body.source_config.resource_spec)
    if problems:
        raise _invalid(problems)
    with http_errors():
        return json_text(_deployments(ctx).patch(str(deployment_id), body, body.revision_source))


@router.get(
    "/v2/deployments/{deployment_id}/revisions",
    response_model=RevisionList,
    responses=ERRORS,
)
def list_revisions(
    deployment_id: uuid.UUID,
    ctx: Context,
    limit: Limit = 20,
    offset: Offset = 0,
    status: StatusList = None,
    remote_reconciled: Annotated[
        bool | None,
        Query(description="Only revisions reconciled remotely (none here) when true."),
    ] = None,
) -> JSONResponse:
    """The deployment's revisions, newest first; `offset` = next page."""
    if status is not None and ctx.settings.dialect is Dialect.SEED:
        check_status_list(status)
    statuses = frozenset(status.split(",")) if status else None
    if remote_reconciled:  # local revisions are never reconciled remotely
        statuses = frozenset()
    with http_errors():
        page = _deployments(ctx).list_revisions(str(deployment_id), limit, offset, statuses)
    return JSONResponse(page)


def check_status_list(status: str) -> None:
    """The seed's rule for `status`: known revision statuses only (422, as its pattern)."""
    if not re.fullmatch(STATUS_LIST_PATTERN, status):
        problem = {
            "loc": ["query", "status"],
            "msg": f"String should match pattern '{STATUS_LIST_PATTERN}'",
            "type": "string_pattern_mismatch",
        }
        raise RequestValidationError([problem])


@router.post(
    "/v2/deployments/{deployment_id}/revisions",
    status_code=201,
    response_model=Revision,
    responses={
        **ERRORS,
        **TOO_LARGE,
        400: {
            "model": ErrorBody,
            "description": "A rule broken (the detail names the field), or a body that is "
            "not JSON.",
        },
        409: {"model": ErrorBody, "description": "The deployment is being deleted."},
    },
)
def create_revision(deployment_id: uuid.UUID, body: RevisionCreate, ctx: Context) -> JSONResponse:
    """One new revision: `source_revision_config` (and the revision fields of
    `source_config`, `secrets`, `secret_references`) merged as a PATCH merges them.

    Checked here as a PATCH checks them: value bounds, secret names (environment
    variable names) and resource numbers; the rest, as for a PATCH, is the stored
    deployment's to refuse."""
    problems = check_values(body.model_dump(exclude_none=True))
    problems += check_secret_names(body.secrets or [], ("secrets",))
    if body.source_config is not None:
        problems += check_resource_numbers(body.source_config.resource_spec)
    if problems:
        raise _invalid(problems)
    with http_errors():
        revision = _deployments(ctx).create_revision(str(deployment_id), body)
    return JSONResponse(revision, status_code=201)


@router.delete(
    "/v2/deployments/{deployment_id}",
    status_code=204,
    response_class=Response,
    responses=ERRORS,
)
def delete_deployment(
    deployment_id: uuid.UUID,
    ctx: Context,
    delete_tracing_project: Annotated[
        bool,
        Query(description="Delete its tracing project too (here it always goes with it)."),
    ] = False,
) -> Response:
    """Start deleting one deployment: AWAITING_DELETE, then AWAITING_FINAL_DELETE, then 404."""
    with http_errors():
        _deployments(ctx).delete_one(str(deployment_id))
    return Response(status_code=204)


@router.get(
    "/v2/deployments/{deployment_id}/revisions/{revision_id}",
    response_model=Revision,
    responses=ERRORS,
)
async def get_revision(
    deployment_id: uuid.UUID, revision_id: uuid.UUID, ctx: Context
) -> JSONResponse:
    """One revision of the deployment (polled for `status`)."""
    with http_errors():
        return JSONResponse(_deployments(ctx).get_revision(str(deployment_id), str(revision_id)))


@router.post(
    "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy",
    response_model=Deployment,
    responses={
        **ERRORS,
        400: {
            "model": ErrorBody,
            "description": "The revision cannot be redeployed: only one that was DEPLOYED can be.",
        },
        409: {"model": ErrorBody, "description": "The deployment is being deleted."},
    },
)
def redeploy_revision(deployment_id: uuid.UUID, revision_id: uuid.UUID, ctx: Context) -> Response:
    """Redeploy an earlier revision: a new revision of its source and config, rolled out
    as a new revision is, which becomes the deployment's latest (and its active one once
    deployed). The deployment, as a PATCH answers."""
    with http_errors():
        text = _deployments(ctx).redeploy(str(deployment_id), str(revision_id))
    return json_text(text)


@router.get("/local/tracing-projects", tags=["local"])
def list_tracing_projects(ctx: Context) -> JSONResponse:
    """Local only: the workspace's tracing projects (one per deployment, same name)."""
    return JSONResponse(_deployments(ctx).tracing_projects())
