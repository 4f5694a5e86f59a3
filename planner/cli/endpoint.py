"""Which control plane to talk to, and the embedded local one.

`Endpoint` is where requests go, as `planner.cli.target.resolve_target` resolves it (the
only resolver); `open_client` opens it: a URL with the API key, or the EMBEDDED local
control plane: `create_app` over `<state dir>/local-control-plane.db`, in-process through
`httpx2.ASGITransport` (no server, no port), announced on stderr.

`endpoint` is the identity a state file records: the base URL (without user info), or
`embedded:<db path>`.

This wiring lives in the cli, the composing layer: the api client knows neither the
server nor the state.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2

from planner.api.auth import check_base_url, display_url
from planner.api.client import ControlPlaneClient
from planner.api.modes import Mode
from planner.api.retry import RetryPolicy
from planner.api.vocabulary import Dialect
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from planner.errors import ConfigError, StateError
from planner.files import os_reason
from planner.state.endpoints import embedded_endpoint  # the one spelling the state records

if TYPE_CHECKING:  # sqlite3 is the embedded control plane's: a URL endpoint needs none
    import sqlite3

EMBEDDED_DB_NAME = "local-control-plane.db"
EMBEDDED_BASE_URL = "http://embedded.local"
EMBEDDED_BUILD_SECONDS = 2.0
EMBEDDED_DEPLOY_SECONDS = 2.0
# Tests and demos may shorten the embedded plane's timings (seconds, >= 0).
EMBEDDED_TIMING_ENV = {
    "build_seconds": "PLANNER_EMBEDDED_BUILD_SECONDS",
    "deploy_seconds": "PLANNER_EMBEDDED_DEPLOY_SECONDS",
    "delete_seconds": "PLANNER_EMBEDDED_DELETE_SECONDS",
}


@dataclass(frozen=True)
class Endpoint:
    """Where requests go: `base_url` (None: the embedded plane at `db_path`), the
    workspace and the API key (empty when none is set); resolved by
    `planner.cli.target.resolve_target`, opened by `open_client`."""

    base_url: str | None
    tenant_id: str | None
    api_key: str = field(default="", repr=False)
    db_path: Path | None = None
    mode: Mode = Mode.CLOUD  # the embedded plane's source availability
    dialect: Dialect = Dialect.SEED  # the embedded plane's words (`ServerSettings.dialect`)
    timings: Mapping[str, float] = field(default_factory=dict)  # the embedded plane's

    @property
    def is_embedded(self) -> bool:
        return self.base_url is None

    @property
    def endpoint(self) -> str:
        """The identity a state records: the URL without user info, or `embedded:<db>`."""
        if self.db_path is not None:
            return embedded_endpoint(self.db_path)
        return display_url(self.base_url or "")


def embedded_settings(
    db_path: Path,
    tenant_id: str,
    mode: Mode = Mode.CLOUD,
    timings: Mapping[str, float] | None = None,
    dialect: Dialect = Dialect.SEED,
) -> ServerSettings:
    """Short revision timings so a quickstart finishes in seconds; the embedded key may
    use the default workspace and the configured one. TIMINGS overrides
    build_seconds / deploy_seconds / delete_seconds; DIALECT is the words it speaks."""
    tenants = list(dict.fromkeys([DEFAULT_TENANT_ID, tenant_id]))
    settings = ServerSettings(
        db_path=db_path,
        api_keys={EMBEDDED_API_KEY: tenants},
        build_seconds=EMBEDDED_BUILD_SECONDS,
        deploy_seconds=EMBEDDED_DEPLOY_SECONDS,
        mode=mode,
        dialect=dialect,
    )
    for name, seconds in (timings or {}).items():
        setattr(settings, name, seconds)
    return settings


def embedded_timings(environ: Mapping[str, str]) -> dict[str, float]:
    """The timings set by PLANNER_EMBEDDED_{BUILD,DEPLOY,DELETE}_SECONDS."""
    timings: dict[str, float] = {}
    for name, variable in EMBEDDED_TIMING_ENV.items():
        text = environ.get(variable)
        if not text:
            continue
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not seconds >= 0:  # also refuses nan
            raise ConfigError(f"{variable}: not a number of seconds >= 0: {text!r}")
        timings[name] = seconds
    return timings


def embedded_client(
    db_path: Path,
    tenant_id: str,
    *,
    mode: Mode = Mode.CLOUD,
    retry: RetryPolicy | None = None,
    timings: Mapping[str, float] | None = None,
    dialect: Dialect = Dialect.SEED,
) -> ControlPlaneClient:
    """A client on a local control plane app running in this process (speaking DIALECT)."""
    import sqlite3

    from planner.controlplane.app import create_app  # FastAPI only when embedded

    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        app = create_app(embedded_settings(db_path, tenant_id, mode, timings, dialect))
    except (OSError, sqlite3.Error) as error:
        raise database_error(db_path, error) from None
    # ASGITransport runs no lifespan events: the store is opened by create_app and
    # closed here when the client closes.
    return ControlPlaneClient(
        EMBEDDED_BASE_URL,
        EMBEDDED_API_KEY,
        tenant_id,
        transport=EmbeddedTransport(db_path, app=app),
        retry=retry,
        endpoint=embedded_endpoint(db_path),
        on_close=app.state.store.close,
    )


def _is_read_only(error: OSError | sqlite3.Error) -> bool:
    import sqlite3

    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_READONLY


class EmbeddedTransport(httpx2.ASGITransport):
    """The in-process transport; a database failure is a StateError naming the file."""

    def __init__(self, db_path: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.db_path = db_path

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        import sqlite3

        try:
            return await super().handle_async_request(request)
        except (OSError, sqlite3.Error) as error:
            raise database_error(self.db_path, error) from None


def database_error(db_path: Path, error: OSError | sqlite3.Error) -> StateError:
    """One clear line for a local control plane database that cannot be opened or written."""
    if _is_read_only(error):
        return StateError(
            f"the local control plane database {db_path} is read-only ({error})",
            hint="make the file and its directory writable, or set PLANNER_STATE_DIR "
            "to a writable directory",
        )
    reason = os_reason(error) if isinstance(error, OSError) else str(error)
    return StateError(
        f"cannot open the local control plane database {db_path}: {reason}",
        hint="set PLANNER_STATE_DIR to a writable directory",
    )


def announce_on_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def open_client(
    endpoint: Endpoint,
    *,
    announce: Callable[[str], None] = announce_on_stderr,
    retry: RetryPolicy | None = None,
) -> ControlPlaneClient:
    """The client of ENDPOINT: the embedded plane (announced), or the URL with the key."""
    if endpoint.db_path is not None and endpoint.tenant_id is not None:
        announce(
            f"Using the embedded local control plane ({endpoint.db_path}); "
            "set PLANNER_BASE_URL or [control_plane].base_url to use a real one."
        )
        return embedded_client(
            endpoint.db_path,
            endpoint.tenant_id,
            mode=endpoint.mode,
            retry=retry,
            timings=endpoint.timings,
            dialect=endpoint.dialect,
        )
    base_url = endpoint.base_url or ""
    check_base_url(base_url)
    if not endpoint.api_key:
        raise ConfigError(
            f"PLANNER_API_KEY is not set (needed for {display_url(base_url)})",
            hint="export PLANNER_API_KEY=<your key>; it is never read from the config file",
        )
    return ControlPlaneClient(base_url, endpoint.api_key, endpoint.tenant_id, retry=retry)
