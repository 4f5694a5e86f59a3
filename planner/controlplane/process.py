"""The server process's plumbing around the app: the listening socket, quiet signals, and
which event loop and HTTP parser it runs on. Standard library only (it probes for uvloop
and httptools), so the command layer can name these without loading the server."""

from __future__ import annotations

import signal
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from planner.errors import PlannerError


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP (not 0): accepted sockets inherit it, and asyncio only sets
    # TCP_NODELAY on sockets that say they are TCP; without it every response on loopback
    # waits ~40 ms for a delayed ACK (Nagle).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise PlannerError(f"Cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    return sock


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def http_parser() -> str:
    """uvicorn's HTTP/1.1 implementation: the compiled `httptools` parser (a dependency:
    about a fifth of the server's CPU per request), pure-Python `h11` where it has no
    wheel."""
    try:
        import httptools  # noqa: F401
    except ImportError:  # pragma: no cover - httptools is a dependency; a platform may lack it
        return "h11"
    return "httptools"


def event_loop_factory() -> Callable[[], Any] | None:
    """uvloop's event loop (a dependency: about a third of the HTTP layer's CPU per
    request), asyncio's own (None) where it has no wheel."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency; Windows has none
        return None
    return uvloop.new_event_loop


@contextmanager
def quiet_signals() -> Iterator[None]:
    """uvicorn re-raises the signal that stopped it; handle it quietly so we exit 0."""
    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, lambda *_: None) for sig in handled}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
