"""One identity per request: each auth header is sent once (or repeated with one value).

Auth (`context.get_context`) reads the first value of a header, the rate limiter
(`faults.key_identity`) reads the whole header list: with two different `X-Api-Key`
values each would see a different caller (a rate-limit bypass). So a request that
repeats `X-Api-Key`, `Authorization` or `X-Tenant-Id` with different values is refused
with 400 before anything else looks at it. The detail names the header, never a value.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from planner.controlplane.asgi import send_error

IDENTITY_HEADERS = {
    b"x-api-key": "X-Api-Key",
    b"authorization": "Authorization",
    b"x-tenant-id": "X-Tenant-Id",
}


def repeated_identity_header(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The name of the first identity header sent with two different values, else None."""
    seen: dict[bytes, bytes] = {}
    for raw_name, value in headers:
        name = raw_name.lower()
        if name in IDENTITY_HEADERS and seen.setdefault(name, value) != value:
            return IDENTITY_HEADERS[name]
    return None


class SingleIdentityMiddleware:
    """Refuse (400) a request whose identity headers disagree with themselves."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        repeated = None
        if scope["type"] == "http":
            repeated = repeated_identity_header(scope.get("headers", []))
        if repeated is None:
            await self.app(scope, receive, send)
            return
        detail = (
            f"The {repeated} header was sent more than once with different values; "
            "send one identity per request."
        )
        await send_error(send, 400, detail, {})
