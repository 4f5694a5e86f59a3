"""`planner serve`: run the local control plane over HTTP (`controlplane/serve.py`).

Once listening it prints its base URL alone on the first line of stdout (flushed), so a
script or test can read it; with `--port 0` that is the port the system picked. With no
`--api-key` it generates a key and prints it on the next line: the operator's new key,
the one place a key is ever printed. Ctrl-C or SIGTERM stop it cleanly (exit 0).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterable

from planner.cli.commands.serve import ServeArgs

# The runtime's loop and parser choices, importable here as before (standard library only).
from planner.controlplane.process import event_loop_factory as event_loop_factory
from planner.controlplane.process import http_parser as http_parser
from planner.controlplane.serve import run_server
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings


def key_grants(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    grants: dict[str, list[str]] = {}
    for key, tenant in pairs:
        tenants = grants.setdefault(key, [])
        if tenant not in tenants:
            tenants.append(tenant)
    return grants


def run(args: ServeArgs) -> int:
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
        mode=args.mode,
        dialect=args.dialect,
        seed_file=args.seed,
        random_seed=args.random_seed,
    )

    def announce(url: str) -> None:
        print(url, flush=True)
        if generated is not None:
            print(f"API key: {generated}", flush=True)
        print(
            f"Local control plane ({settings.mode} mode, {settings.dialect} dialect), "
            f"db {settings.db_path}; Ctrl-C stops it.",
            file=sys.stderr,
            flush=True,
        )

    run_server(settings, args.host, args.port, announce)
    return 0
