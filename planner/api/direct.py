"""Requests of the client's own pool, built once and handed straight to its transport.

`httpx2.AsyncClient.request` builds a request through layers an API call does not use
(base-URL merging, header merging, cookie jar copies, the auth generator, redirect and
event-hook bookkeeping): at fleet scale they cost as much as the pool and the HTTP/1.1
parser below them. `DirectSender` builds the very request `AsyncClient.request(method,
url, params=..., json=...)` followed by `KeyAuth` would send, byte for byte, and sends
it through the transport the client was given (`planner.api.transport`'s pool, or a
test's); a client whose transports httpx2 made (a proxy from the environment) is used
as it is.

Invariants (`tests/api/test_direct.py` compares every kind of call with httpx2's own
build):
- header order: `Host`, `Content-Length: 0` for a POST/PUT/PATCH without a body, the
  client's headers, `Content-Length` and `Content-Type` of a JSON body, then the auth
  headers; the JSON body encoded as httpx2 encodes `json=`;
- the URL parsed as httpx2 parses it, query parameters encoded by `httpx2.QueryParams`;
  a query of plain characters (unreserved, `=&+` and `%XX`: what httpx2's parser keeps
  as it is, like the ids of a poll) is set on the URL httpx2 parsed once for that path,
  not checked again character by character (`planner.api.http_internals.with_query`);
- the client's timeouts; the response read (and closed) before it is returned, as
  `AsyncClient.request` reads it.
Only a client with no cookies goes this way (the caller checks): a cookie set by the
server makes the caller use `AsyncClient.request`, which sends it back.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from planner.api.http_internals import with_query

_WITH_BODY = ("POST", "PUT", "PATCH", "QUERY")
_NO_LENGTH = [(b"Content-Length", b"0")]
_JSON_TYPE = (b"Content-Type", b"application/json")
_URLS_KEPT = 256  # parsed URLs kept (the collection paths are asked for again and again)
# characters `urllib.parse.quote_plus` (httpx2's query encoding) leaves as they are; with
# them, `,` (encoded as `%2C`): what a list of ids is made of
_UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_UNRESERVED_AND_COMMA = _UNRESERVED + ","
_MAX_QUERY = 60_000  # below httpx2's MAX_URL_LENGTH (65,536) with the rest of the URL


class DirectSender:
    """Sends through a transport what `CLIENT.request(...)` plus EXTRA headers (appended,
    in order) would send through it."""

    def __init__(self, client: httpx2.AsyncClient, extra: list[tuple[bytes, bytes]]) -> None:
        self._headers = [*client.headers.raw]
        self._extra = extra
        self._timeout = {"timeout": client.timeout.as_dict()}
        self._urls: dict[str, httpx2.URL] = {}
        self._queried: dict[str, httpx2.URL] = {}  # the same, parsed with a query

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
            target = self._with_params(url, target, params)
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
        self,
        transport: httpx2.AsyncBaseTransport,
        method: str,
        url: str,
        params: list[tuple[str, Any]] | None,
        body: Any,
    ) -> httpx2.Response:
        """Send the request through TRANSPORT (the client's) and read its response
        (closed when this returns)."""
        request = self.build(method, url, params, body)
        response = await transport.handle_async_request(request)
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

    def _with_params(
        self, url: str, target: httpx2.URL, params: list[tuple[str, Any]]
    ) -> httpx2.URL:
        """`httpx2.URL(target, params=params)`, without encoding and parsing a plain query
        character by character."""
        query = _plain_query(params)
        if query is None:
            return httpx2.URL(target, params=params)
        queried = self._queried.get(url)
        if queried is None:
            if len(self._queried) >= _URLS_KEPT:
                self._queried.clear()
            # httpx2's own parse of URL with a query: every part but the query as it makes it
            queried = self._queried[url] = httpx2.URL(target, params=[("q", "")])
        return with_query(queried, query)


def _plain_query(params: list[tuple[str, Any]]) -> str | None:
    """The query `httpx2.QueryParams(params)` encodes and httpx2's URL parser keeps as it
    is, when every key and value is plain (unreserved characters; commas in values) and
    each value a string or an int; else None. `quote_plus` maps character by character:
    a plain text stays, each comma becomes `%2C`."""
    if not params:
        return None
    pieces = []
    for key, value in params:
        if type(value) is int:
            value = str(value)
        if type(key) is not str or type(value) is not str or not key or key.strip(_UNRESERVED):
            return None
        if value.strip(_UNRESERVED_AND_COMMA):
            return None
        pieces.append(f"{key}={value.replace(',', '%2C')}")
    query = "&".join(pieces)
    return query if len(query) <= _MAX_QUERY else None
