"""A fast path for the two routes a fleet calls per deployment, beside FastAPI's routes.

In plain words: most of a fleet's requests are `POST /v2/deployments` (an apply's
creates) and `GET /v2/deployments` (a refresh's pages, an apply's polls), and for those
FastAPI's routing, dependency solving and request and response objects cost about as much
server CPU as the work itself. So this middleware looks at such a request first. When it
is plainly well formed (an `X-Api-Key` the server knows; a JSON body that validates, or
only `limit`, `offset` and `deployment_ids` in their canonical form) it calls the very
functions the routes call (`deployments.created`, `deployments.listed`) and writes their
answer with the same headers, so the client gets the same bytes. Anything else, and any
refusal on the way (an unknown key, a body the model or the rules refuse, a name taken),
goes on to FastAPI, which answers it as it always has: what ran before the refusal only
read, or was rolled back, so running it again there changes nothing. The decision is
never made twice: both paths end in the same functions.

`tests/controlplane/test_hot_routes_match.py` pins it: for any sequence of creates and
pages, from any caller, well formed or not, a plane with this fast path answers with the
statuses, headers and bytes of a plane without it.

A create is a `Store.batched()` unit: it commits with the creates of the same turn of the
event loop, and is answered once that COMMIT is done.

It runs innermost, after the body bounds, the faults and the metrics.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from planner.api.models import DeploymentCreate
from planner.controlplane.body_limits import read_body, replaying
from planner.controlplane.context import RequestContext, select_workspace, workspaces_of
from planner.controlplane.deployments import created, listed
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import DeploymentFilter, Store
from planner.controlplane.validation import UUID_LIST_PATTERN

PATH = "/v2/deployments"
JSON = b"application/json"
MAX_OFFSET = 2**63 - 1  # the list route's bound on `offset`
Refused = (HTTPException, RequestValidationError)


class HotRoutes:
    """Answer the plain creates and list pages of `PATH`; pass on everything else."""

    def __init__(self, app: ASGIApp, settings: ServerSettings, store: Store) -> None:
        self.app = app
        self.settings = settings
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == PATH:
            if scope["method"] == "POST":
                await self.create(scope, receive, send)
                return
            if scope["method"] == "GET" and await self.list_page(scope, send):
                return
        await self.app(scope, receive, send)

    async def create(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _body(receive)
        ctx = self.context(scope)
        model = _model(body) if _header(scope, b"content-type") == JSON else None
        text = None
        if ctx is not None and model is not None:
            try:
                text = created(model, ctx, batched=True)
            except Refused:  # raised before the write, or rolled back with it
                text = None
        if text is None:
            await self.app(scope, replaying(body, receive), send)
            return
        await self.store.batch_committed()
        await _send_json(send, 201, text)

    async def list_page(self, scope: Scope, send: Send) -> bool:
        """True when the page was sent."""
        ctx = self.context(scope)
        query = _query(scope)
        if ctx is None or query is None:
            return False
        limit, offset, ids = query
        if ids is not None and not (ids.isascii() and re.fullmatch(UUID_LIST_PATTERN, ids)):
            return False
        try:
            text = listed(ctx, DeploymentFilter(), ids, limit, offset)
        except Refused:
            return False
        await _send_json(send, 200, text)
        return True

    def context(self, scope: Scope) -> RequestContext | None:
        """`context.get_context` for a request sending `X-Api-Key` (which wins over a
        bearer token); None when there is none, or it would refuse the request."""
        key = _header(scope, b"x-api-key")
        if not key:
            return None
        tenant = _header(scope, b"x-tenant-id")
        try:
            allowed = workspaces_of(key.decode("latin-1"), self.settings.api_keys)
            workspace = select_workspace(tenant.decode("latin-1") if tenant else None, allowed)
        except HTTPException:
            return None
        return RequestContext(workspace, key.decode("latin-1"), self.store, self.settings)


async def _body(receive: Receive) -> bytes:
    """The whole body (the body bounds have read and bounded it already)."""
    found = await read_body(receive, MAX_OFFSET)
    return found or b""


def _model(body: bytes) -> DeploymentCreate | None:
    """The body as the route receives it (`json.loads`, then the model), if it is one."""
    try:
        return DeploymentCreate.model_validate(json.loads(body))
    except (ValueError, ValidationError):  # JSONDecodeError is a ValueError
        return None


def _header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of header NAME (as Starlette's `headers.get`)."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def _query(scope: Scope) -> tuple[int, int, str | None] | None:
    """(limit, offset, deployment_ids) of a query naming nothing else, each once, the
    numbers in canonical form within the route's bounds; None otherwise."""
    pairs = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
    found = dict(pairs)
    if len(found) != len(pairs) or not found.keys() <= {"limit", "offset", "deployment_ids"}:
        return None
    limit = _canonical(found.get("limit", "20"))
    offset = _canonical(found.get("offset", "0"))
    if limit is None or offset is None or not 1 <= limit <= 100 or offset > MAX_OFFSET:
        return None
    return limit, offset, found.get("deployment_ids")


def _canonical(text: str) -> int | None:
    """The number TEXT writes, when it is written as Python writes it (digits, no sign
    or leading zero)."""
    if not (text.isascii() and text.isdigit()) or str(int(text)) != text:
        return None
    return int(text)


async def _send_json(send: Send, status: int, text: str) -> None:
    """TEXT as the routes' `json_text` response sends it (same headers, same order)."""
    payload = text.encode()
    headers: list[tuple[bytes, bytes]] = [
        (b"content-length", b"%d" % len(payload)),
        (b"content-type", JSON),
    ]
    start: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": payload})
