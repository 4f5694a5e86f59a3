"""The HTTP side of `planner reconcile --listen HOST:PORT`: read-only, GET and HEAD only.

    /          the status page (`planner.reconcile.page`)
    /metrics   Prometheus metrics (`planner.reconcile.metrics`)
    /healthz   200 while the process serves at all (liveness)
    /readyz    200 once the loop said it is ready and its last `UNREADY_AFTER_ERRORS`
               cycles did not all fail; 503 otherwise, with the reason (readiness)

A standard-library `ThreadingHTTPServer` on a daemon thread: a controller answers a
scraper every few seconds and a person now and then, which needs no event loop, no
worker and no start-up cost beyond a bound socket. Requests are not logged (stdout is
the command's, and a scrape every 15 s is not news). Every other method is 405; every
response says `Cache-Control: no-store`, and the page's Content-Security-Policy allows
nothing but its inline style.
"""

from __future__ import annotations

import socket
import sys
import threading
from datetime import UTC, datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from planner.errors import PlannerError
from planner.reconcile.metrics import CONTENT_TYPE, ReconcileMetrics
from planner.reconcile.page import render_page
from planner.reconcile.status import StatusBoard, readiness

REQUEST_TIMEOUT_S = 30  # a client that sends no whole request by then is dropped
POLL_INTERVAL_S = 0.1  # how soon close() returns (uvicorn checks its exit flag as often)
ALLOWED_METHODS = "GET, HEAD"
_PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
_TEXT = "text/plain; charset=utf-8"


def parse_listen(listen: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:9108` for IPv6) as (host, port); port 0 picks a free one."""
    host, sep, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise PlannerError(
            f"--listen {listen!r} is not HOST:PORT",
            hint="for example --listen 127.0.0.1:9108, or --listen 0.0.0.0:9108 in a container",
        )
    return host, int(port)


class ReconcileHttpServer:
    """The server on its own thread; `close()` stops it and frees the port."""

    def __init__(self, board: StatusBoard, host: str, port: int) -> None:
        self.board = board
        self.metrics = ReconcileMetrics()
        board.add_listener(self.metrics.observe)
        snapshot = board.snapshot()
        self.metrics.observe("leader", snapshot)
        server_class = _Server6 if ":" in host else _Server4
        try:
            self._server = server_class((host, port), _Handler)
        except OSError as exc:
            raise PlannerError(
                f"Cannot listen on {host}:{port}: {exc.strerror or exc}",
                hint="pick a free port with --listen HOST:PORT",
            ) from exc
        self._server.owner = self
        self.host = host
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": POLL_INTERVAL_S},
            name="reconcile-http",
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def serve_status(board: StatusBoard, listen: str) -> ReconcileHttpServer:
    """Serve BOARD on LISTEN (`HOST:PORT`) until `close()`; returns once listening."""
    host, port = parse_listen(listen)
    return ReconcileHttpServer(board, host, port)


class _Server4(ThreadingHTTPServer):
    daemon_threads = True
    owner: ReconcileHttpServer

    def handle_error(self, request: object, client_address: object) -> None:
        """A client gone before its answer was written is not news; anything else is a bug
        (printed with its traceback; the server goes on)."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Server6(_Server4):
    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    server: _Server4
    server_version = "planner-reconcile"
    sys_version = ""
    timeout = REQUEST_TIMEOUT_S

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _answer(self, *, send_body: bool) -> None:
        owner = self.server.owner
        path = urlsplit(self.path).path
        headers: dict[str, str] = {}
        if path == "/":
            now = datetime.now(UTC)
            status, body = HTTPStatus.OK, render_page(owner.board.snapshot(), now=now).encode()
            headers = {"Content-Type": "text/html; charset=utf-8"}
            headers["Content-Security-Policy"] = _PAGE_POLICY
        elif path == "/metrics":
            status, body = HTTPStatus.OK, owner.metrics.exposition()
            headers = {"Content-Type": CONTENT_TYPE}
        elif path == "/healthz":
            status, body = HTTPStatus.OK, b"ok\n"
        elif path == "/readyz":
            ready, reason = readiness(owner.board.snapshot())
            status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
            body = f"{reason}\n".encode()
        else:
            status, body = HTTPStatus.NOT_FOUND, b"not found: try /, /metrics, /healthz, /readyz\n"
        self._send(status, body, headers, send_body=send_body)

    def _send(
        self, status: HTTPStatus, body: bytes, headers: dict[str, str], *, send_body: bool
    ) -> None:
        self.send_response(status)
        headers = {"Content-Type": _TEXT, **headers}
        headers |= {"Content-Length": str(len(body)), "Cache-Control": "no-store"}
        headers |= {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _refuse(self) -> None:
        body = b"read-only: only GET and HEAD\n"
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, body, {"Allow": ALLOWED_METHODS}, send_body=True)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_TRACE = do_CONNECT = _refuse

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged (see the module docstring)."""
