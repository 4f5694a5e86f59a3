"""Routes of the official clients' deploy flows: push tokens, source uploads, build logs.

HTTP only; `planner.controlplane.artifacts` does the work. The upload PUT is the one
route without an API key: like a signed storage URL, its URL's token is its credential.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from planner.api.models import ErrorBody
from planner.api.other_models import (
    BuildLogPage,
    BuildLogRequest,
    PushToken,
    PushTokenRequest,
    UploadReceipt,
    UploadUrl,
    UploadUrlRequest,
)
from planner.api.rules import Mode
from planner.controlplane.artifacts import Artifacts, BuildLogs, UploadRefused, receive_upload
from planner.controlplane.context import Context
from planner.controlplane.deployments import http_errors
from planner.controlplane.prefix import came_through_prefix
from planner.controlplane.responses import AUTHENTICATED, INVALID, NOT_FOUND, TOO_LARGE, Responses
from planner.controlplane.settings import SELF_HOSTED_PREFIX, ServerSettings

router = APIRouter()

WRONG_SOURCE: Responses = {
    409: {
        "model": ErrorBody,
        "description": "The deployment is of another source, or is being deleted.",
    }
}
Token = Annotated[
    str, Query(min_length=1, max_length=200, description="The upload URL's one-time token.")
]
TARBALL_BODY = {
    "requestBody": {
        "required": True,
        "description": "The source tarball (.tar.gz or .tar), at most 1 MiB here; any "
        "Content-Type is read as bytes (langgraph-cli sends application/gzip).",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@contextmanager
def _http_errors() -> Iterator[None]:
    """The deployment routes' mapping, and an upload's own refusals."""
    with http_errors():
        try:
            yield
        except UploadRefused as exc:
            raise HTTPException(exc.status, exc.detail) from None


def public_base_url(request: Request, settings: ServerSettings) -> str:
    """How a client reaches this server: the request's origin, with `/api-host` when
    self-hosted or when the request came under it (the prefix middleware has taken it off
    the path by now)."""
    is_prefixed = settings.mode == Mode.SELF_HOSTED or came_through_prefix(request.scope)
    prefix = SELF_HOSTED_PREFIX if is_prefixed else ""
    return str(request.base_url).rstrip("/") + prefix


@router.post(
    "/v2/deployments/{deployment_id}/push-token",
    response_model=PushToken,
    responses={**AUTHENTICATED, **NOT_FOUND, **INVALID, **TOO_LARGE, **WRONG_SOURCE},
    tags=["deployments"],
)
def request_push_token(
    deployment_id: uuid.UUID, ctx: Context, body: PushTokenRequest | None = None
) -> JSONResponse:
    """Credentials to push an `internal_docker` deployment's image (a sandbox registry)."""
    with _http_errors():
        token = Artifacts(ctx.store, ctx.settings, ctx.tenant_id).push_token(str(deployment_id))
    return JSONResponse(token)


@router.post(
    "/v2/deployments/{deployment_id}/upload-url",
    response_model=UploadUrl,
    responses={**AUTHENTICATED, **NOT_FOUND, **INVALID, **TOO_LARGE, **WRONG_SOURCE},
    tags=["deployments"],
)
def request_upload_url(
    deployment_id: uuid.UUID,
    request: Request,
    ctx: Context,
    body: UploadUrlRequest | None = None,
) -> JSONResponse:
    """Where to PUT an `internal_source` deployment's tarball, and its `object_path`
    (what a revision's `source_revision_config.source_tarball_path` names)."""
    base_url = public_base_url(request, ctx.settings)
    with _http_errors():
        found = Artifacts(ctx.store, ctx.settings, ctx.tenant_id).upload_url(
            str(deployment_id), base_url
        )
    return JSONResponse(found)


@router.put(
    "/local/uploads/{upload_id}",
    response_model=UploadReceipt,
    responses={
        400: {"model": ErrorBody, "description": "Not a tar archive, or conflicting headers."},
        403: {
            "model": ErrorBody,
            "description": "Wrong or expired token, or a URL already used (its token works once).",
        },
        **NOT_FOUND,
        **INVALID,
        413: {"model": ErrorBody, "description": "The body is over 1 MiB."},
        429: AUTHENTICATED[429],
        503: AUTHENTICATED[503],
    },
    openapi_extra=TARBALL_BODY,
    tags=["local"],
)
async def put_upload(upload_id: uuid.UUID, token: Token, request: Request) -> JSONResponse:
    """Local only: the target of an upload URL; keeps the tarball for the revision that
    names its `object_path`."""
    content = await request.body()  # at most MAX_UPLOAD_BYTES: the body-size middleware
    with _http_errors():
        receipt = receive_upload(
            request.app.state.store, request.app.state.settings, str(upload_id), token, content
        )
    return JSONResponse(receipt)


@router.post(
    "/v1/projects/{project_id}/revisions/{revision_id}/build_logs",
    response_model=BuildLogPage,
    responses={**AUTHENTICATED, **NOT_FOUND, **INVALID, **TOO_LARGE},
    tags=["deployments"],
)
def build_logs(
    project_id: uuid.UUID,
    revision_id: uuid.UUID,
    ctx: Context,
    body: Annotated[BuildLogRequest | None, Body()] = None,
) -> JSONResponse:
    """One page of a revision's build log (`project_id`: the deployment's id, or its
    tracing project's); `next_offset` is where the next page starts."""
    page = body or BuildLogRequest()
    offset = int(page.offset or 0)
    logs = BuildLogs(ctx.store, ctx.settings, ctx.tenant_id)
    with _http_errors():
        found = logs.page(str(project_id), str(revision_id), page.order, page.limit, offset)
    return JSONResponse(found)
