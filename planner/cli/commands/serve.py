"""The arguments of `planner serve`: where to listen, the database, the keys, the timings
and faults of the local control plane, its mode and dialect, the seed data."""

from __future__ import annotations

import argparse
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.api.modes import Mode
from planner.api.vocabulary import Dialect
from planner.cli.options import seconds, whole_number
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings

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
    parser.set_defaults(parse=parse, run_module="serve")


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


@dataclass(frozen=True)
class ServeArgs:
    """What `planner serve` was given (none of `api_keys`: a key is generated)."""

    host: str
    port: int
    db: Path
    api_keys: tuple[tuple[str, str], ...]
    build_seconds: float
    deploy_seconds: float
    delete_seconds: float
    latency_ms: int
    error_rate: float
    rate_limit: int
    mode: Mode
    dialect: Dialect
    seed: Path | None
    random_seed: int


def parse(namespace: argparse.Namespace) -> ServeArgs:
    return ServeArgs(
        host=namespace.host,
        port=namespace.port,
        db=namespace.db,
        api_keys=tuple(namespace.api_keys),
        build_seconds=namespace.build_seconds,
        deploy_seconds=namespace.deploy_seconds,
        delete_seconds=namespace.delete_seconds,
        latency_ms=namespace.latency_ms,
        error_rate=namespace.error_rate,
        rate_limit=namespace.rate_limit,
        mode=Mode(namespace.mode),
        dialect=Dialect(namespace.dialect),
        seed=namespace.seed,
        random_seed=namespace.random_seed,
    )
