"""The client's transport: httpcore2's connection pool over plain asyncio sockets.

httpx2 and httpcore2 stay the one HTTP stack (requests, pool, HTTP/1.1 and HTTP/2, TLS);
only the layer under the pool's connections changes, through their public parameters:
the pool is built with `network_backend=AsyncioBackend()` and handed to the httpx2
client as its `transport=` (`PoolTransport`, `client_transport`). httpcore2's default
backend goes through anyio, and its pool asks every idle connection "has the server
closed you?" on each request it queues and each response it closes: anyio answers with
a `poll()` system call per connection (plus `getpeername` bookkeeping), so a pool of
100 connections spent 40 % of an apply's CPU on it. Here the event loop already reads
every socket as data arrives, so the answer is a look at a buffer.

A client given a transport of its own is one httpx2 no longer gives the proxies of the
environment: when the environment names one (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`),
`client_transport` makes none, and httpx2 its own transports, the proxy's included.

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
import contextlib
import socket
import ssl
import urllib.request
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

import httpcore2
import httpx2

from planner.api.http_internals import LeanPool

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


class PoolTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport over an httpcore2 POOL (what httpx2's own `AsyncHTTPTransport`
    is over a pool it builds itself, which takes no network backend): a request handed to
    the pool as httpcore2's, its answer and httpcore2's errors as httpx2's."""

    def __init__(self, pool: httpcore2.AsyncConnectionPool, ssl_context: ssl.SSLContext) -> None:
        self.pool = pool
        self.ssl_context = ssl_context  # the pool's, as it was built

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        sent = httpcore2.Request(
            method=request.method,
            url=httpcore2.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx2_errors():
            answer = await self.pool.handle_async_request(sent)
        assert isinstance(answer.stream, AsyncIterable)
        return httpx2.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_AnswerStream(answer.stream),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


class _AnswerStream(httpx2.AsyncByteStream):
    """An httpcore2 response body as httpx2 reads it (its errors as httpx2's)."""

    def __init__(self, body: AsyncIterable[bytes]) -> None:
        self._body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx2_errors():
            async for part in self._body:
                yield part

    async def aclose(self) -> None:
        closing = getattr(self._body, "aclose", None)
        if closing is not None:
            with _as_httpx2_errors():
                await closing()


# httpcore2's errors and httpx2's of the same name (httpx2's transport raises those)
_SAME_NAMES = (
    "TimeoutException", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout",
    "NetworkError", "ConnectError", "ReadError", "WriteError", "ProxyError",
    "UnsupportedProtocol", "ProtocolError", "LocalProtocolError", "RemoteProtocolError",
)  # fmt: skip
_ERRORS: dict[type[Exception], type[httpx2.HTTPError]] = {
    getattr(httpcore2, name): getattr(httpx2, name) for name in _SAME_NAMES
}


@contextlib.contextmanager
def _as_httpx2_errors() -> Iterator[None]:
    """An httpcore2 error raised inside as httpx2's error of the same name (the most
    specific one: a `ReadTimeout` as `httpx2.ReadTimeout`), its message kept."""
    try:
        yield
    except Exception as error:
        for kind in type(error).__mro__:
            found = _ERRORS.get(kind)
            if found is not None:
                raise found(str(error)) from error
        raise


def client_transport(limits: httpx2.Limits, ssl_context: ssl.SSLContext) -> PoolTransport | None:
    """The client's own transport: a `LeanPool` of LIMITS on `AsyncioBackend`, verifying
    TLS with SSL_CONTEXT; None when the environment names a proxy (httpx2's own
    transports then carry the requests, through the proxy)."""
    if environment_proxied():
        return None
    pool = LeanPool(
        ssl_context=ssl_context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=AsyncioBackend(),
    )
    return PoolTransport(pool, ssl_context)


def environment_proxied() -> bool:
    """Whether the environment names a proxy for HTTP or HTTPS (what `urllib.request`
    reads, as httpx2 reads it: `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, either case)."""
    proxies = urllib.request.getproxies()
    return any(proxies.get(scheme) for scheme in ("http", "https", "all"))
