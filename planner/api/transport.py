"""The client's network backend: httpcore2's connection pool over plain asyncio sockets.

httpx2 and httpcore2 stay the one HTTP stack (requests, pool, HTTP/1.1 and HTTP/2, TLS,
proxies); only the layer under the pool's connections changes. httpcore2's default
backend goes through anyio, and its pool asks every idle connection "has the server
closed you?" on each request it queues and each response it closes: anyio answers with
a `poll()` system call per connection (plus `getpeername` bookkeeping), so a pool of
100 connections spent 40 % of an apply's CPU on it. Here the event loop already reads
every socket as data arrives, so the answer is a look at a buffer.

Invariants:
- a stream reads what the loop received, in order; `b""` once the peer closed cleanly,
  `ReadError` for a connection that broke, `ReadTimeout` after the read timeout;
- writes are gathered and sent by the next read (a request's head and body go in one
  `send`), or at once past `_FLUSH_BYTES`, waiting while the socket's buffer is full;
- `is_readable` (the pool's expiry question) is true once anything arrived, the peer
  closed, or the connection broke: the same answer `poll()` gives, with no system call.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

# httpcore2's socket option tuples: (level, option, value) or (level, option, None, length)
SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)
_FLUSH_BYTES = 64 * 1024


class _Connection(asyncio.Protocol):
    """What the event loop hands one socket's events to: a receive buffer and waiters."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.received = bytearray()
        self.closed = False  # the peer closed (EOF) or the connection was lost
        self.error: BaseException | None = None
        self._reader: asyncio.Future[None] | None = None
        self._writable: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.received += data
        self._wake_reader()

    def eof_received(self) -> bool:
        self.closed = True
        self._wake_reader()
        return False  # let the transport close itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.error = exc
        self._wake_reader()
        self.resume_writing()

    def pause_writing(self) -> None:
        if self._writable is None:
            self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        waiter, self._writable = self._writable, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake_reader(self) -> None:
        waiter, self._reader = self._reader, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def readable(self, timeout: float | None) -> None:
        """Wait until something arrived or the connection closed (TimeoutError after TIMEOUT)."""
        waiter = self._reader = asyncio.get_running_loop().create_future()
        await _within(waiter, timeout)

    async def writable(self, timeout: float | None) -> None:
        """Wait while the transport's write buffer is over its high-water mark."""
        if self._writable is not None:
            await _within(asyncio.shield(self._writable), timeout)


async def _within(waiter: asyncio.Future[None], timeout: float | None) -> None:
    if timeout is None:
        await waiter
        return
    timer = asyncio.get_running_loop().call_later(timeout, _expire, waiter)
    try:
        await waiter
    finally:
        timer.cancel()


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


class AsyncioStream(httpcore2.AsyncNetworkStream):
    """One connection's byte stream (see the module docstring)."""

    def __init__(self, transport: asyncio.Transport, connection: _Connection) -> None:
        self._transport = transport
        self._connection = connection
        self._unsent = bytearray()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        await self._flush(timeout, httpcore2.WriteError, httpcore2.WriteTimeout)
        connection = self._connection
        if not connection.received and not connection.closed:
            try:
                await connection.readable(timeout)
            except TimeoutError:
                raise httpcore2.ReadTimeout("timed out reading from the server") from None
        if connection.received:
            data = bytes(connection.received[:max_bytes])
            del connection.received[:max_bytes]
            return data
        if connection.error is not None:
            raise httpcore2.ReadError(str(connection.error) or "connection lost")
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._unsent += buffer
        if len(self._unsent) >= _FLUSH_BYTES:
            await self._flush(timeout, httpcore2.WriteError, httpcore2.WriteTimeout)

    async def _flush(
        self, timeout: float | None, broken: type[Exception], late: type[Exception]
    ) -> None:
        if not self._unsent:
            return
        if self._transport.is_closing():
            raise broken(str(self._connection.error or "connection closed"))
        data, self._unsent = bytes(self._unsent), bytearray()
        self._transport.write(data)
        try:
            await self._connection.writable(timeout)
        except TimeoutError:
            raise late("timed out writing to the server") from None

    async def aclose(self) -> None:
        self._unsent.clear()
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        await self._flush(timeout, httpcore2.ConnectError, httpcore2.ConnectTimeout)
        loop = asyncio.get_running_loop()
        try:
            tls = await loop.start_tls(
                self._transport,
                self._connection,
                ssl_context,
                server_hostname=server_hostname,
                ssl_handshake_timeout=timeout,
            )
        except (OSError, ssl.SSLError, ConnectionError, TimeoutError) as exc:
            self._transport.close()
            if isinstance(exc, TimeoutError):
                raise httpcore2.ConnectTimeout(str(exc)) from exc
            raise httpcore2.ConnectError(str(exc)) from exc
        return AsyncioStream(tls, self._connection)  # type: ignore[arg-type]

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            return bool(self._connection.received) or self._connection.closed
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        return None


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    """Connections for httpcore2's pool, on the running asyncio loop."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        opening = loop.create_connection(_Connection, host, port, local_addr=local)
        return await _opened(opening, timeout, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        opening = asyncio.get_running_loop().create_unix_connection(_Connection, path)
        return await _opened(opening, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _opened(
    opening: Any, timeout: float | None, socket_options: Iterable[SocketOption] | None
) -> AsyncioStream:
    try:
        async with asyncio.timeout(timeout):
            transport, connection = await opening
    except TimeoutError as exc:
        raise httpcore2.ConnectTimeout("timed out connecting") from exc
    except OSError as exc:
        raise httpcore2.ConnectError(str(exc)) from exc
    raw: socket.socket | None = transport.get_extra_info("socket")
    for option in socket_options or ():
        if raw is not None:
            raw.setsockopt(*option)
    return AsyncioStream(transport, connection)


class LeanPool(httpcore2.AsyncConnectionPool):
    """httpcore2's pool, minus most of its passes over every connection.

    The pool re-plans (drops closed and expired connections, hands connections to queued
    requests) each time a request comes and each time a response is closed: a pass over
    every connection, twice per request (an eighth of an apply's CPU with 54 of them).
    Here, for an HTTP/1.1 pool that keeps every connection alive:
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


def use_asyncio_backend(client: httpx2.AsyncClient) -> None:
    """Put the connection pools of CLIENT's httpx2 HTTP transports (its own and any
    proxy's from the environment) on `AsyncioBackend`, a plain pool as a `LeanPool`;
    other transports (MockTransport, ASGITransport) are left alone."""
    transports = [client._transport, *client._mounts.values()]
    for transport in transports:
        if isinstance(transport, httpx2.AsyncHTTPTransport):
            pool = transport._pool
            if isinstance(pool, httpcore2.AsyncConnectionPool):
                pool._network_backend = AsyncioBackend()
            if type(pool) is httpcore2.AsyncConnectionPool:
                pool.__class__ = LeanPool  # the same pool, its two methods above
