"""The one module that reaches into httpx2's and httpcore2's internals, each for a
measured gain (docs/guides/performance.md) that their public parameters cannot give.

- `LeanPool`: httpcore2's connection pool re-plans (a pass over every connection) twice
  per request; its public parameters cannot turn that off, and the passes were an eighth
  of an apply's CPU. It overrides two of the pool's private methods and reads its private
  request list, connection list and limits.
- `with_query`: httpx2 checks a URL's query character by character each time one is
  set; a poll's query (100 ids) costs a third of a millisecond or more that way. It sets
  a query that needs no check on a URL httpx2 parsed once, through the URL's private
  parse result.

Everything else of the HTTP stack goes through public parameters: the pool is built with
`network_backend=` (`planner.api.transport`), the client with `transport=`. What this
module relies on is pinned by `tests/api/test_http_internals.py`, which fails on an
upgrade of either library past the versions it was checked against: check each use
again, then move the range there.
"""

from __future__ import annotations

from typing import Any

import httpcore2
import httpx2


class LeanPool(httpcore2.AsyncConnectionPool):
    """httpcore2's pool, minus most of its passes over every connection.

    The pool re-plans (drops closed and expired connections, hands connections to queued
    requests) each time a request comes and each time a response is closed: a pass over
    every connection, twice per request. Here, for an HTTP/1.1 pool that keeps every
    connection alive:
    - a response closed while no request is queued re-plans nothing (there is nothing to
      hand over; the next request's pass does the rest);
    - a lone queued request takes the first idle connection no other request holds, the
      one httpcore2's pass would give it, found without the pass; when that connection
      is closed or expired, or none is idle, httpcore2's own pass runs (it drops what is
      closed or expired, and opens a connection).
    A connection that is closed or expires while others are taken is dropped by the
    next full pass (it is never taken: only an idle, unexpired one is).
    """

    def _assign_requests_to_connections(self) -> list[httpcore2.AsyncConnectionInterface]:
        queued = [request for request in self._requests if request.connection is None]
        if not queued:
            return []
        if len(queued) == 1 and self._took_idle(queued[0]):
            return []
        return super()._assign_requests_to_connections()

    def _took_idle(self, waiting: Any) -> bool:
        """Hand WAITING (a queued pool request) the first idle connection no request
        holds, when that is all httpcore2's pass would do."""
        if self._http2 or self._max_keepalive_connections < self._max_connections:
            return False  # multiplexed connections, idle ones to close: the full pass
        held = {request.connection for request in self._requests}
        origin = waiting.request.url.origin
        for connection in self._connections:
            if connection in held or not connection.is_idle():
                continue
            if connection.is_closed() or connection.has_expired():
                return False  # for the full pass to drop
            if connection.can_handle_request(origin):
                waiting.assign_to_connection(connection)
                return True
        return False

    async def _close_connections(self, closing: list[httpcore2.AsyncConnectionInterface]) -> None:
        if closing:  # no cancellation shield to set up for nothing
            await super()._close_connections(closing)


def with_query(parsed: httpx2.URL, query: str) -> httpx2.URL:
    """PARSED (a URL httpx2 parsed with a query, any query) with QUERY instead: what
    httpx2 would parse of it, for a QUERY its parser keeps as it is (unreserved
    characters, `=&+` and `%XX`: the caller checks), without checking it again."""
    found = httpx2.URL.__new__(httpx2.URL)
    found._uri_reference = parsed._uri_reference._replace(query=query)
    return found
