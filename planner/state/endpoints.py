"""How a state names its control plane: one canonical spelling of each endpoint."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

EMBEDDED_PREFIX = "embedded:"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def embedded_endpoint(db_path: str | os.PathLike[str]) -> str:
    """The `endpoint` recorded for the embedded local control plane at DB_PATH: its
    absolute real path, so every spelling of one database is one endpoint."""
    return f"{EMBEDDED_PREFIX}{Path(os.path.realpath(db_path)).as_posix()}"


def canonical_endpoint(endpoint: str) -> str:
    """ENDPOINT in the one spelling states record and compare.

    `embedded:<path>`: the database's absolute real path (resolved from the working
    directory). A URL: lowercase scheme and host, no user info, default port, query or
    trailing slash. Anything else is returned without its trailing slashes.
    """
    if endpoint.startswith(EMBEDDED_PREFIX):
        return embedded_endpoint(endpoint.removeprefix(EMBEDDED_PREFIX))
    return _canonical_url(endpoint)


def _canonical_url(url: str) -> str:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # an unparseable port: compare as spelled
        return url.rstrip("/")
    scheme, host = parts.scheme.lower(), parts.hostname
    if not scheme or not host:
        return url.rstrip("/")
    if ":" in host:
        host = f"[{host}]"  # IPv6
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return f"{scheme}://{host}{parts.path.rstrip('/')}"


def same_endpoint(recorded: str, current: str) -> bool:
    # both sides: states written before endpoints were canonical keep working
    return canonical_endpoint(recorded) == canonical_endpoint(current)


def target_text(endpoint: str, tenant_id: str | None) -> str:
    """`ENDPOINT (workspace ID)`, or, with no tenant id, the workspace the key selects."""
    if tenant_id:
        return f"{endpoint} (workspace {tenant_id})"
    return f"{endpoint} (no tenant id: the API key's own workspace)"
