"""`planner serve`: run the local control plane over HTTP (uvicorn).

Once listening it prints its base URL alone on the first line of stdout (flushed), so a
script or test can read it; with `--port 0` that is the port the system picked. With no
`--api-key` it generates a key and prints it on the next line: the operator's new key,
the one place a key is ever printed. Ctrl-C or SIGTERM stop it cleanly (exit 0).
"""

from __future__ import annotations

import argparse
import secrets
import signal
import socket
import sqlite3
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from planner.api.modes import Mode
from planner.api.vocabulary import Dialect
from planner.cli.options import seconds, whole_number
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings
from planner.errors import PlannerError
from planner.files import os_reason

DEFAULTS = ServerSettings()


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "serve",
        parents=parents,
        help="run the local control plane",
        description="Run the local control plane (the API of the deployment control plane).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=8123,
        help="port; 0 picks a free one (default: %(default)s)",
    )
    parser.add_argument(
        "--db", type=Path, default=DEFAULTS.db_path, help="SQLite file (default: %(default)s)"
    )
    parser.add_argument(
        "--api-key",
        dest="api_keys",
        action="append",
        type=api_key_grant,
        default=[],
        metavar="KEY[:TENANT]",
        help="grant KEY access to workspace TENANT (a uuid; the default workspace if left "
        "out); repeat a key with several tenants to span workspaces; none: a new key is "
        "generated and printed",
    )
    add_timing_options(parser)
    add_fault_options(parser)
    parser.add_argument(
        "--mode",
        choices=[m.value for m in Mode],
        default=DEFAULTS.mode.value,
        help="which sources are available (cloud: the git source and internal_*; "
        "self-hosted: external_docker; default: %(default)s)",
    )
    parser.add_argument(
        "--dialect",
        choices=[d.value for d in Dialect],
        default=DEFAULTS.dialect.value,
        help="the API's words: the seed's neutral ones, or the real service's, with its "
        "routes and status codes (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=Path,
        default=None,
        metavar="FILE",
        help="seed data, TOML or JSON (default: the packaged default_seed.toml)",
    )
    parser.set_defaults(func=run)


def add_timing_options(parser: argparse.ArgumentParser) -> None:
    for name, default, what in (
        ("--build-seconds", DEFAULTS.build_seconds, "time a revision spends building"),
        ("--deploy-seconds", DEFAULTS.deploy_seconds, "time a revision spends deploying"),
        ("--delete-seconds", DEFAULTS.delete_seconds, "time a deployment spends being deleted"),
    ):
        parser.add_argument(
            name, type=seconds, default=default, metavar="S", help=f"{what} (default: %(default)s)"
        )


def add_fault_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--latency-ms",
        type=whole_number,
        default=0,
        metavar="N",
        help="delay added to each request (default: 0)",
    )
    parser.add_argument(
        "--error-rate",
        type=rate,
        default=0.0,
        metavar="R",
        help="share of requests answered 503, 0..1 (default: 0)",
    )
    parser.add_argument(
        "--rate-limit",
        type=whole_number,
        default=0,
        metavar="N",
        help="requests per key per second, excess gets 429 (default: 0, no limit)",
    )
    parser.add_argument(
        "--random-seed",
        type=int,
        default=DEFAULTS.random_seed,
        metavar="N",
        help="seed of the random stream behind --error-rate (default: %(default)s)",
    )


# --- argument types (argparse prints their message; none repeats a key) -------------


def port_number(text: str) -> int:
    value = whole_number(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"port must be 0..65535, got {value}")
    return value


def rate(text: str) -> float:
    value = seconds(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def api_key_grant(text: str) -> tuple[str, str]:
    """`KEY` or `KEY:TENANT` as (key, tenant); the tenant is the part after the last `:`."""
    key, sep, tenant = text.rpartition(":")
    if not sep:
        key, tenant = text, DEFAULT_TENANT_ID
    try:
        tenant = str(uuid.UUID(tenant))
    except ValueError:
        raise argparse.ArgumentTypeError("TENANT in KEY:TENANT must be a uuid") from None
    if not key.strip():
        raise argparse.ArgumentTypeError("KEY must not be empty")
    return key, tenant


# --- running ---------------------------------------------------------------------------


def key_grants(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    grants: dict[str, list[str]] = {}
    for key, tenant in pairs:
        tenants = grants.setdefault(key, [])
        if tenant not in tenants:
            tenants.append(tenant)
    return grants


def open_app(settings: ServerSettings) -> Any:
    # FastAPI and uvicorn load only when serving: every other command starts faster.
    from planner.controlplane.app import create_app

    try:
        settings.db_path.parent.mkdir(parents=True, exist_ok=True)
        return create_app(settings)
    except (OSError, sqlite3.Error) as exc:
        reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
        raise PlannerError(f"Cannot open the database {settings.db_path}: {reason}") from None


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


def run(args: argparse.Namespace) -> int:
    generated = None if args.api_keys else secrets.token_urlsafe(24)
    grants = key_grants(args.api_keys or [(str(generated), DEFAULT_TENANT_ID)])
    settings = ServerSettings(
        db_path=args.db,
        api_keys=grants,
        build_seconds=args.build_seconds,
        deploy_seconds=args.deploy_seconds,
        delete_seconds=args.delete_seconds,
        latency_ms=args.latency_ms,
        error_rate=args.error_rate,
        rate_limit=args.rate_limit,
        mode=Mode(args.mode),
        dialect=Dialect(args.dialect),
        seed_file=args.seed,
        random_seed=args.random_seed,
    )
    app = open_app(settings)  # a bad seed file or db fails here, before listening
    sock = bind_socket(args.host, args.port)
    url = base_url(args.host, sock.getsockname()[1])

    def announce() -> None:
        print(url, flush=True)
        if generated is not None:
            print(f"API key: {generated}", flush=True)
        print(
            f"Local control plane ({settings.mode} mode, {settings.dialect} dialect), "
            f"db {settings.db_path}; Ctrl-C stops it.",
            file=sys.stderr,
            flush=True,
        )

    import asyncio  # here: `planner serve --help` needs no event loop

    with sock, quiet_signals(), asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        started = runner.run(serve(app, sock, announce))
    if not started:
        raise PlannerError("The local control plane failed to start (see the log above).")
    return 0


async def serve(app: Any, sock: socket.socket, announce: Callable[[], None]) -> bool:
    """Serve until a signal; call `announce` once listening. False if startup failed."""
    import asyncio

    import uvicorn

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
