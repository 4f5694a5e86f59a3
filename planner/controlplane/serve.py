"""The local control plane's runtime: the app over HTTP (uvicorn) on a socket it binds,
until SIGINT or SIGTERM. `planner serve` only turns its arguments into `ServerSettings`
and says what to print once listening (`run_server`).

- The app is built before the socket is bound, so a bad seed file or database fails
  before anything listens.
- Once uvicorn has started, `on_listening(base_url)` is called once; with port 0 the URL
  holds the port the system picked.
- Ctrl-C or SIGTERM stop the server cleanly: uvicorn re-raises the signal that stopped
  it, so the process's handlers are quiet while it runs (`quiet_signals`).
- The socket, the signals, the event loop and the HTTP parser are `process.py`'s.
"""

from __future__ import annotations

import asyncio
import socket
import sqlite3
from collections.abc import Callable
from typing import Any

import uvicorn

from planner.controlplane.app import create_app
from planner.controlplane.process import (
    base_url,
    bind_socket,
    event_loop_factory,
    http_parser,
    quiet_signals,
)
from planner.controlplane.settings import ServerSettings
from planner.errors import PlannerError
from planner.files import os_reason


def run_server(
    settings: ServerSettings, host: str, port: int, on_listening: Callable[[str], None]
) -> None:
    """Serve SETTINGS' control plane on HOST:PORT until a signal; call ON_LISTENING with
    the base URL once listening. Raises `PlannerError` when it cannot start."""
    app = open_app(settings)  # a bad seed file or db fails here, before listening
    sock = bind_socket(host, port)
    url = base_url(host, sock.getsockname()[1])
    with sock, quiet_signals(), asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        started = runner.run(serve(app, sock, lambda: on_listening(url)))
    if not started:
        raise PlannerError("The local control plane failed to start (see the log above).")


def open_app(settings: ServerSettings) -> Any:
    try:
        settings.db_path.parent.mkdir(parents=True, exist_ok=True)
        return create_app(settings)
    except (OSError, sqlite3.Error) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
        raise PlannerError(f"Cannot open the database {settings.db_path}: {reason}") from None


async def serve(app: Any, sock: socket.socket, announce: Callable[[], None]) -> bool:
    """Serve until a signal; call `announce` once listening. False if startup failed."""
    config = uvicorn.Config(
        app, http=http_parser(), log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    started = server.started
    if started:
        announce()
    await task
    return started
