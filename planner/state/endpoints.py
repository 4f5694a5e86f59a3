"""How a state names its control plane: one canonical spelling of each endpoint."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from urllib.parse import urlsplit

EMBEDDED_PREFIX = "embedded:"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def embedded_endpoint(
    db_path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None
) -> str:
    """The `endpoint` recorded for the embedded local control plane at DB_PATH: its
    absolute real path, so every spelling of one database is one endpoint; or, given
    BASE (the config's directory) and a database under it, its path relative to BASE, so
    a checkout moved with its state and database is still the same endpoint."""
    real = Path(os.path.realpath(db_path))
    if base is not None:
        root = Path(os.path.realpath(base))
        if real.is_relative_to(root):
            return f"{EMBEDDED_PREFIX}{real.relative_to(root).as_posix()}"
    return f"{EMBEDDED_PREFIX}{real.as_posix()}"


def canonical_endpoint(endpoint: str, base: str | os.PathLike[str] | None = None) -> str:
    """ENDPOINT in the one spelling states record and compare.

    `embedded:<path>`: an absolute path is the database's real path; a relative one is
    relative to the config's directory: resolved against BASE when given (to compare),
    else kept relative (to record). A URL: lowercase scheme and host, no user info,
    default port, query or trailing slash. Anything else is returned without its trailing
    slashes.
    """
    if endpoint.startswith(EMBEDDED_PREFIX):
        path = endpoint.removeprefix(EMBEDDED_PREFIX)
        if os.path.isabs(path):
            return embedded_endpoint(path)
        if base is not None:
            return embedded_endpoint(Path(base) / path)
        return f"{EMBEDDED_PREFIX}{posixpath.normpath(Path(path).as_posix())}"
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


def same_endpoint(recorded: str, current: str, base: str | os.PathLike[str] | None = None) -> bool:
    """Whether a state RECORDED for one endpoint belongs to CURRENT; relative embedded
    paths are resolved against BASE (the config's directory), so a state recorded with
    the database's absolute path (before they were relative) still matches in place."""
    # both sides: states written before endpoints were canonical keep working
    return canonical_endpoint(recorded, base) == canonical_endpoint(current, base)


def target_text(endpoint: str, tenant_id: str | None) -> str:
    """`ENDPOINT (workspace ID)`, or, with no tenant id, the workspace the key selects."""
    if tenant_id:
        return f"{endpoint} (workspace {tenant_id})"
    return f"{endpoint} (no tenant id: the API key's own workspace)"
