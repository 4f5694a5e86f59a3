"""The `/api-host` path prefix: the API is served under it as well as at the root.

Self-hosted installs serve the API under `/api-host`, and the Terraform provider sends its
deployment calls to `<api_url>/api-host` for any URL that is not the SaaS host: so both
modes serve it there. The prefix is taken off the path before anything else reads it;
`came_through_prefix` tells a route that it was there (an upload URL keeps it).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

# The scope key set on a request that came under the prefix (its value: the prefix).
PREFIX_SCOPE_KEY = "planner.api_prefix"


class PrefixMiddleware:
    """Serve the API under `prefix` too (`/api-host/v2/...` is `/v2/...`)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] == "http" and path.startswith(self.prefix + "/"):
            scope = {**scope, "path": path[len(self.prefix) :], PREFIX_SCOPE_KEY: self.prefix}
            scope["raw_path"] = scope["path"].encode()
        await self.app(scope, receive, send)


def came_through_prefix(scope: Scope) -> bool:
    return PREFIX_SCOPE_KEY in scope
