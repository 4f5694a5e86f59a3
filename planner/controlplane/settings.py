"""Settings of one local control plane instance (what `planner serve` flags set)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from planner.api.modes import Mode
from planner.api.vocabulary import Dialect

DEFAULT_TENANT_ID = "00000000-0000-4000-8000-000000000001"
EMBEDDED_API_KEY = "local-dev-key"
# Self-hosted installs serve the API under this path prefix; the server serves it there in
# both modes, as well as at the root (the Terraform provider sends its deployment calls to
# `<api_url>/api-host` for any URL that is not the SaaS host).
SELF_HOSTED_PREFIX = "/api-host"


@dataclass
class ServerSettings:
    """Everything that shapes a local control plane.

    `api_keys` maps each key to the workspaces (tenant ids) it may use; a key given
    without a tenant gets `DEFAULT_TENANT_ID`. `clock` returns epoch seconds; the
    revision lifecycle is computed from timestamps against it, so it also works
    in-process with no background task. `dialect` is the words the API speaks
    (`planner serve --dialect`, and the embedded plane's): the store keeps the seed's
    either way (`planner.controlplane.dialect` translates at the edge).
    """

    db_path: Path = Path("state/local-control-plane.db")
    api_keys: dict[str, list[str]] = field(
        default_factory=lambda: {EMBEDDED_API_KEY: [DEFAULT_TENANT_ID]}
    )
    build_seconds: float = 5.0
    deploy_seconds: float = 5.0
    delete_seconds: float = 1.0
    latency_ms: int = 0
    error_rate: float = 0.0
    rate_limit: int = 0  # requests per key per second; 0 = unlimited
    mode: Mode = Mode.CLOUD
    dialect: Dialect = Dialect.SEED
    seed_file: Path | None = None
    random_seed: int = 0
    clock: Callable[[], float] = time.time
