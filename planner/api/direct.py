"""Requests of the client's own pool, built once and handed straight to its transport.

`httpx2.AsyncClient.request` builds a request through layers an API call does not use
(base-URL merging, header merging, cookie jar copies, the auth generator, redirect and
event-hook bookkeeping): at fleet scale they cost as much as the pool and the HTTP/1.1
parser below them. `DirectSender` builds the very request `AsyncClient.request(method,
url, params=..., json=...)` followed by `KeyAuth` would send, byte for byte, and sends
it through the same transport (the client's pool, or the proxy it mounts for that URL).

Invariants (`tests/api/test_direct.py` compares every kind of call with httpx2's own
build):
- header order: `Host`, `Content-Length: 0` for a POST/PUT/PATCH without a body, the
  client's headers, `Content-Length` and `Content-Type` of a JSON body, then the auth
  headers; the JSON body encoded as httpx2 encodes `json=`;
- the URL parsed as httpx2 parses it, query parameters encoded by `httpx2.QueryParams`;
- the client's timeouts; the response read (and closed) before it is returned, as
  `AsyncClient.request` reads it.
Only a client with no cookies goes this way (the caller checks): a cookie set by the
server makes the caller use `AsyncClient.request`, which sends it back.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

_WITH_BODY = ("POST", "PUT", "PATCH", "QUERY")
_NO_LENGTH = [(b"Content-Length", b"0")]
_JSON_TYPE = (b"Content-Type", b"application/json")
_URLS_KEPT = 256  # parsed URLs kept (the collection paths are asked for again and again)


class DirectSender:
    """Sends through CLIENT's transport what `CLIENT.request(...)` plus EXTRA headers
    (appended, in order) would send."""

    def __init__(self, client: httpx2.AsyncClient, extra: list[tuple[bytes, bytes]]) -> None:
        self._client = client
        self._headers = [*client.headers.raw]
        self._extra = extra
        self._timeout = {"timeout": client.timeout.as_dict()}
        self._urls: dict[str, httpx2.URL] = {}
        self._transports: dict[tuple[str, bytes], httpx2.AsyncBaseTransport] = {}

    @classmethod
    def of(cls, client: httpx2.AsyncClient, extra: list[tuple[str, str]]) -> DirectSender | None:
        """A sender for CLIENT, or None when EXTRA cannot go out as ASCII headers (the
        client's own path then raises what it raises)."""
        try:
            encoded = [(name.encode("ascii"), value.encode("ascii")) for name, value in extra]
        except UnicodeEncodeError:
            return None
        return cls(client, encoded)

    def build(
        self, method: str, url: str, params: list[tuple[str, Any]] | None, body: Any
    ) -> httpx2.Request:
        target = self._url(url)
        if params is not None:
            target = httpx2.URL(target, params=params)
        headers: list[tuple[bytes, bytes]] = [(b"Host", target.netloc)]
        if body is None:
            content = b""
            if method in _WITH_BODY:
                headers += _NO_LENGTH
            headers += self._headers
        else:
            content = json.dumps(
                body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
            headers += self._headers
            headers += ((b"Content-Length", str(len(content)).encode("ascii")), _JSON_TYPE)
        headers += self._extra
        return httpx2.Request(
            method,
            target,
            headers=headers,
            stream=httpx2.ByteStream(content),
            extensions=self._timeout,
        )

    async def send(
        self, method: str, url: str, params: list[tuple[str, Any]] | None, body: Any
    ) -> httpx2.Response:
        """Send the request and read its response (closed when this returns)."""
        request = self.build(method, url, params, body)
        response = await self._transport(request.url).handle_async_request(request)
        response.request = request
        try:
            await response.aread()
        except BaseException:
            await response.aclose()
            raise
        return response

    def _url(self, url: str) -> httpx2.URL:
        parsed = self._urls.get(url)
        if parsed is None:
            if len(self._urls) >= _URLS_KEPT:
                self._urls.clear()
            parsed = self._urls[url] = httpx2.URL(url)
        return parsed

    def _transport(self, url: httpx2.URL) -> httpx2.AsyncBaseTransport:
        """The client's transport for URL's origin (its pool, or a proxy it mounts)."""
        origin = url.scheme, url.netloc
        transport = self._transports.get(origin)
        if transport is None:
            transport = self._transports[origin] = self._client._transport_for_url(url)
        return transport
