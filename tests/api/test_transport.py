"""The client's transport: httpcore2's pool on the asyncio network backend, handed to httpx2
through their public parameters, over real loopback sockets."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpcore2
import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.http_internals import LeanPool
from planner.api.transport import AsyncioBackend, AsyncioStream, PoolTransport, client_transport
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY

pytestmark = pytest.mark.anyio

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
DEFAULT_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=20)  # httpx2's
OK = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok"


@asynccontextmanager
async def raw_server(answer: Answer, tls: ssl.SSLContext | None = None) -> AsyncIterator[str]:
    """A TCP server on a free 127.0.0.1 port answering with ANSWER; yields its base URL."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await answer(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the client went away first
        finally:
            writer.close()
            await asyncio.gather(writer.wait_closed(), return_exceptions=True)

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{port}"


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and body (by its content-length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return head + await reader.readexactly(length)


async def closed(writer: asyncio.StreamWriter) -> None:
    writer.close()
    await writer.wait_closed()


class LeanClient(httpx2.AsyncClient):
    """An httpx2 client on the planner's transport (`client_transport`); `pool` is its pool."""

    def __init__(
        self,
        limits: httpx2.Limits = DEFAULT_LIMITS,
        verify: ssl.SSLContext | None = None,
        **kwargs: Any,
    ) -> None:
        transport = client_transport(limits, verify or httpx2.create_ssl_context())
        assert transport is not None  # no proxy in the test's environment
        super().__init__(transport=transport, **kwargs)
        self.pool = transport.pool


def asyncio_client(**kwargs: Any) -> LeanClient:
    return LeanClient(**kwargs)


async def test_the_project_client_uses_the_asyncio_backend(loopback_url: str) -> None:
    """ControlPlaneClient's own pool is a LeanPool on AsyncioBackend, handed to httpx2 as
    its transport, and works over loopback HTTP."""
    async with ControlPlaneClient(loopback_url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID) as client:
        assert (await client.list_deployments()).resources == []
        transport = client._transport
        assert isinstance(transport, PoolTransport) and type(transport.pool) is LeanPool
        pool = transport.pool
        assert isinstance(pool._network_backend, AsyncioBackend)  # httpcore2's, as given
        assert len(pool.connections) == 1 and pool.connections[0].is_idle()


async def test_a_given_transport_is_used_as_it_is() -> None:
    """A caller's transport (MockTransport, ASGITransport) carries the client's requests,
    unchanged."""
    mock = httpx2.MockTransport(lambda request: httpx2.Response(200, json=[]))
    async with ControlPlaneClient("http://x.test", EMBEDDED_API_KEY, transport=mock) as client:
        assert client._transport is mock
        assert await client.list_providers() == []


async def test_a_proxy_named_by_the_environment_carries_the_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With `HTTP_PROXY` set, the client makes no transport of its own (httpx2 would then
    ignore the proxy): httpx2's transports send its requests through the proxy."""
    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            seen.append(await read_request(reader))
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]")
            await writer.drain()

    async with raw_server(proxy) as proxy_url:
        monkeypatch.setenv("HTTP_PROXY", proxy_url)
        assert client_transport(DEFAULT_LIMITS, httpx2.create_ssl_context()) is None
        async with ControlPlaneClient("http://cp.test", EMBEDDED_API_KEY) as client:
            assert client._direct is None
            assert await client.list_providers() == []
    assert seen[0].startswith(b"GET http://cp.test/v2/")


async def test_keep_alive_reuses_and_a_server_close_is_noticed() -> None:
    """Requests share one connection; one the server closed while idle is dropped by the
    pool's expiry check (no system call), and the next request opens a fresh one."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        for _ in range(2):
            await read_request(reader)
            writer.write(OK)
            await writer.drain()
        await closed(writer)  # after two answers: an idle keep-alive connection the server ends

    async with raw_server(answer) as url, asyncio_client() as client:
        assert [(await client.get(url)).text for _ in range(2)] == ["ok", "ok"]
        await asyncio.sleep(0.05)  # the close arrives while the connection is idle
        stream = client.pool.connections[0]._connection._network_stream  # type: ignore[attr-defined]
        assert stream.get_extra_info("is_readable") is True
        assert (await client.get(url)).text == "ok"
    assert connections == 2


async def test_the_lean_pool_hands_a_freed_connection_to_a_queued_request() -> None:
    """With one connection, a second request waits in the LeanPool's queue and gets the
    connection as soon as the first response is closed."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while True:
            await read_request(reader)
            await asyncio.sleep(0.02)
            writer.write(OK)
            await writer.drain()

    limits = httpx2.Limits(max_connections=1, max_keepalive_connections=1)
    async with raw_server(answer) as url, asyncio_client(limits=limits) as client:
        pool = client.pool
        assert type(pool) is LeanPool
        answers = await asyncio.gather(*(client.get(url) for _ in range(3)))
        assert [a.text for a in answers] == ["ok"] * 3
        assert len(pool.connections) == 1 and pool.connections[0].is_idle()
    assert connections == 1


async def test_the_lean_pool_drops_a_closed_connection_on_the_next_request() -> None:
    """Closing a response with nothing queued re-plans nothing; a connection the server
    closed meanwhile is dropped by the next request's pass, which opens a fresh one."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(OK.replace(b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n"))
        await closed(writer)

    async with raw_server(answer) as url, asyncio_client() as client:
        pool = client.pool
        assert (await client.get(url)).text == "ok"
        assert len(pool.connections) == 1 and pool.connections[0].is_closed()  # left as is
        assert (await client.get(url)).text == "ok"
        assert len(pool.connections) == 1 and pool.connections[0].is_closed()
    assert connections == 2


async def test_the_lean_pool_takes_an_idle_connection_of_the_same_origin_only() -> None:
    """An idle connection to another server is not taken: a new one is opened for the
    request's own origin, then each origin's idle connection is reused."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            writer.write(OK)
            await writer.drain()

    limits = httpx2.Limits(max_connections=4, max_keepalive_connections=4)
    async with (
        raw_server(answer) as one,
        raw_server(answer) as two,
        asyncio_client(limits=limits) as client,
    ):
        pool = client.pool
        for url in (one, two, one, two):
            assert (await client.get(url)).text == "ok"
        assert len(pool.connections) == 2
        assert all(c.is_idle() and c._connection._request_count == 2 for c in pool.connections)  # type: ignore[attr-defined]


async def test_the_lean_pool_leaves_a_connection_closed_while_idle_to_the_full_pass() -> None:
    """An idle connection the server closed is not taken: httpcore2's pass drops it and
    opens a fresh one (a pool keeping every connection alive, as the client's does)."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await read_request(reader)
        writer.write(OK)
        await writer.drain()
        await closed(writer)  # a keep-alive connection the server ends once idle

    limits = httpx2.Limits(max_connections=4, max_keepalive_connections=4)
    async with raw_server(answer) as url, asyncio_client(limits=limits) as client:
        pool = client.pool
        assert (await client.get(url)).text == "ok"
        await asyncio.sleep(0.05)  # the close arrives while the connection is idle
        assert pool.connections[0].has_expired()
        assert (await client.get(url)).text == "ok"
        assert len(pool.connections) == 1 and pool.connections[0].is_idle()
    assert connections == 2


async def test_a_pool_keeping_fewer_connections_alive_closes_the_surplus() -> None:
    """With fewer keep-alive connections than connections, httpcore2's own pass runs:
    idle connections past the keep-alive limit are closed."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            await asyncio.sleep(0.02)
            writer.write(OK)
            await writer.drain()

    limits = httpx2.Limits(max_connections=3, max_keepalive_connections=1)
    async with raw_server(answer) as url, asyncio_client(limits=limits) as client:
        pool = client.pool
        answers = await asyncio.gather(*(client.get(url) for _ in range(3)))
        assert [a.text for a in answers] == ["ok"] * 3
        assert (await client.get(url)).text == "ok"
        assert sum(c.is_idle() and not c.is_closed() for c in pool.connections) == 1


async def test_a_large_body_is_sent_whole_and_read_back() -> None:
    """A body past the gather threshold goes out in full; a large answer comes back whole."""
    got: list[bytes] = []
    reply = b"y" * 300_000

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await read_request(reader))
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(reply) + reply)
        await writer.drain()
        await closed(writer)

    async with raw_server(answer) as url, asyncio_client() as client:
        response = await client.post(url, content=b"x" * 200_000)
    assert response.content == reply
    assert got[0].endswith(b"\r\n\r\n" + b"x" * 200_000)


async def test_read_timeout_and_a_broken_answer() -> None:
    """No answer within the read timeout is ReadTimeout; a close before any answer is a
    protocol error, as with httpcore2's own backend."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(1)
        await closed(writer)

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await closed(writer)

    async with raw_server(silent) as url, asyncio_client(timeout=0.1) as client:
        with pytest.raises(httpx2.ReadTimeout):
            await client.get(url)
    async with raw_server(hang_up) as url, asyncio_client() as client:
        with pytest.raises(httpx2.RemoteProtocolError):
            await client.get(url)


async def test_connect_refused_is_a_connect_error() -> None:
    """Nobody listening: ConnectError, which the client's retries understand."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with asyncio_client() as client:
        with pytest.raises(httpx2.ConnectError):
            await client.get(f"http://127.0.0.1:{port}/")


async def test_stream_extras_socket_options_and_a_reset() -> None:
    """The stream reports its addresses and socket, applies socket options, and a reset
    connection reads as ReadError; writing to a closed one is WriteError."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        writer.transport.abort()  # RST, not FIN

    async with raw_server(answer) as url:
        port = int(url.rsplit(":", 1)[1])
        option = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, socket_options=[option])
        assert isinstance(stream, AsyncioStream)
        assert stream.get_extra_info("server_addr")[1] == port
        assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"
        assert stream.get_extra_info("socket").getsockopt(*option[:2]) == 1
        assert stream.get_extra_info("ssl_object") is None
        assert stream.get_extra_info("other") is None
        await stream.write(b"x")
        with pytest.raises(httpcore2.ReadError):
            await stream.read(10, timeout=5)
        assert stream.get_extra_info("is_readable") is True
        await stream.write(b"more")
        with pytest.raises(httpcore2.WriteError):
            await stream.read(10)
        await stream.aclose()


async def test_a_full_socket_waits_for_the_reader_within_the_write_timeout() -> None:
    """Past the socket's buffers a write waits for the peer to read: WriteTimeout when it
    does not in time; without a timeout it waits until the peer reads."""
    release = asyncio.Event()
    received = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal received
        await release.wait()
        while chunk := await reader.read(1 << 20):
            received += len(chunk)

    async with raw_server(answer) as url:
        port = int(url.rsplit(":", 1)[1])
        stream = await AsyncioBackend().connect_tcp("127.0.0.1", port, timeout=5)
        with pytest.raises(httpcore2.WriteTimeout):
            await stream.write(b"x" * (32 << 20), timeout=0.2)
        release.set()
        await stream.write(b"y" * (1 << 20))
        await stream.aclose()
    assert received > 0


async def test_unix_socket(tmp_path: Path) -> None:
    """A Unix socket connects and carries bytes like TCP."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.read(5))
        await writer.drain()
        await closed(writer)

    path = str(tmp_path / "s.sock")
    server = await asyncio.start_unix_server(answer, path)
    async with server:
        stream = await AsyncioBackend().connect_unix_socket(path, timeout=5)
        await stream.write(b"hello")
        assert await stream.read(5, timeout=5) == b"hello"
        await stream.aclose()
    await AsyncioBackend().sleep(0)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl), and its key."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.mark.slow
async def test_https_through_the_backend(certificate: tuple[Path, Path]) -> None:
    """HTTPS works (the handshake upgrades the asyncio stream); a certificate the client
    does not trust is a ConnectError."""
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            writer.write(OK)
            await writer.drain()

    async with raw_server(answer, server_tls) as url:
        trusting = ssl.create_default_context(cafile=str(cert))
        async with asyncio_client(verify=trusting) as client:
            response = await client.get(url)
            stream = client.pool.connections[0]._connection._network_stream  # type: ignore[attr-defined]
            assert stream.get_extra_info("ssl_object") is not None
        assert response.text == "ok"
        async with asyncio_client() as client:
            with pytest.raises(httpx2.ConnectError):
                await client.get(url)


def test_a_pool_that_may_multiplex_leaves_assignment_to_httpcore2() -> None:
    """HTTP/2 connections take requests while busy: the lone-request path stays out."""
    assert LeanPool(http2=True)._took_idle(object()) is False


async def test_a_resized_pool_keeps_the_clients_tls_context(loopback_url: str) -> None:
    """`fit_pool`'s new pool verifies TLS with the context the client made first (one
    context per client: making one reads the CA bundle)."""
    async with ControlPlaneClient(loopback_url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID) as client:
        assert isinstance(client._transport, PoolTransport)
        first = client._transport.ssl_context
        assert first.verify_mode is ssl.CERT_REQUIRED
        await client.fit_pool(client.pool_connections + 10)
        assert isinstance(client._transport, PoolTransport)
        assert client._transport.ssl_context is first
        assert (await client.list_deployments()).resources == []


@pytest.mark.slow
async def test_a_plain_http_client_trusts_no_certificate(
    certificate: tuple[Path, Path], loopback_url: str
) -> None:
    """A client of an http URL reads no CA bundle: its TLS context verifies and trusts
    nothing, so a request that did reach an https URL fails verification."""
    cert, key = certificate
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(OK)
        await writer.drain()

    async with ControlPlaneClient(loopback_url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID) as client:
        context = client._ssl
        assert context is not None and context.cert_store_stats()["x509_ca"] == 0
        assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
        assert (await client.list_deployments()).resources == []
        async with raw_server(answer, server_tls) as url:
            with pytest.raises(httpx2.ConnectError):
                await client._http.get(url)


async def test_an_https_client_verifies_with_httpx2s_default_context() -> None:
    """https (in any case) gets httpx2's default context: the CA bundle is loaded."""
    for url in ("https://cp.example", "HTTPS://cp.example"):
        async with ControlPlaneClient(url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID) as client:
            context = client._ssl
            assert context is not None and context.cert_store_stats()["x509_ca"] > 0
            assert context.verify_mode is ssl.CERT_REQUIRED
