"""Bounds on every request body, checked before FastAPI parses it.

- Size: at most `MAX_BODY_BYTES`, or less under a path prefix given a smaller bound
  (`path_limits`: the source upload URL takes at most 1 MiB). A larger `Content-Length`
  is refused (413) without reading the body; a body without one (chunked) is counted as
  it arrives and refused at the first chunk past the limit, so at most one chunk more is
  ever buffered.
- Nesting: objects and arrays at most `MAX_JSON_DEPTH` levels deep (the body is level 1).
  A deeper body is a 422 whose `loc` leads to the first object or array past the limit.
  Bodies with few brackets are not parsed here; others are parsed once (at most 16 MiB),
  and a body too deep for the parser itself (100k `[`) is a 422 on `body`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from planner.api.values import MAX_JSON_DEPTH
from planner.controlplane.asgi import send_error, send_json
from planner.files import Loc, nested_too_deep

# The config's expansion bound (`planner.config.bounds.MAX_EXPANDED_BYTES`): any body a
# valid config makes fits. And a body over its bounds (strings past MAX_STRING_LENGTH, in
# lists of lists) is parsed and refused naming the field (422), not refused unread.
MAX_BODY_BYTES = 16 * 1024 * 1024


def too_deep_at(body: bytes, limit: int = MAX_JSON_DEPTH) -> Loc | None:
    """The path of the first object or array nested deeper than `limit`, else None.

    None too for a body that is not JSON (FastAPI answers 400). The size bound keeps the
    parse cheap; the C parser stops at the recursion limit (`()`: too deep, no path).
    """
    if body.count(b"[") + body.count(b"{") <= limit:  # the common case: no parse at all
        return None
    try:
        value = json.loads(body)
    except RecursionError:
        return ()
    except ValueError:
        return None
    return nested_too_deep(value, limit)


def declared_length(scope: Scope) -> int | None:
    """The `Content-Length` the client announced (None: none, or chunked)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            return int(value) if value.strip().isdigit() else None
    return None


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None once it grows past `limit`. None too when the client went
    away: the 413 sent then reaches no one."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the app the buffered body, then the real channel."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def too_large_detail(limit: int) -> str:
    mib, rest = divmod(limit, 1024 * 1024)
    size = f"{mib} MiB" if mib and not rest else f"{limit} bytes"
    return f"Request body too large: at most {size}."


class BodyLimitMiddleware:
    """Refuse bodies past `max_bytes` (413) or nested past `max_depth` (422).

    `path_limits` maps a path prefix to a smaller size bound for the paths under it."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int = MAX_BODY_BYTES,
        max_depth: int = MAX_JSON_DEPTH,
        path_limits: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.path_limits = dict(path_limits or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(str(scope.get("path", "")))
        length = declared_length(scope)
        too_large = length is not None and length > limit
        body = None if too_large else await read_body(receive, limit)
        if body is None:
            await send_error(send, 413, too_large_detail(limit), {})
            return
        deep = too_deep_at(body, self.max_depth)
        if deep is not None:
            await send_json(send, 422, {"detail": [self.too_deep(deep)]}, {})
            return
        await self.app(scope, replaying(body, receive), send)

    def limit_for(self, path: str) -> int:
        """The size bound of a request to `path`."""
        bounds = [bound for prefix, bound in self.path_limits.items() if path.startswith(prefix)]
        return min([self.max_bytes, *bounds])

    def too_deep(self, path: Loc) -> dict[str, object]:
        message = f"nested too deep: objects and arrays may nest at most {self.max_depth} levels"
        return {"loc": ["body", *path], "msg": message, "type": "value_error"}
