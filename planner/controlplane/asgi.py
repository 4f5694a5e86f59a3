"""Answers sent by the ASGI middlewares themselves, before FastAPI: JSON bodies only."""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Send


async def send_json(send: Send, status: int, body: Any, headers: dict[str, str]) -> None:
    """One complete JSON response (the spec's error shapes are JSON objects)."""
    payload = json.dumps(body).encode()
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(payload)),
    ]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})


async def send_error(send: Send, status: int, detail: str, headers: dict[str, str]) -> None:
    """A `{detail}` error response."""
    await send_json(send, status, {"detail": detail}, headers)
