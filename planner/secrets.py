"""Keyed digests of secret values: the only form in which a secret is ever persisted.

The key is derived from the API key and the state's lineage, so a digest is worthless to
anyone who cannot already read the secrets through the API, and changes per state file.
"""

from __future__ import annotations

import hashlib
import hmac

SENSITIVE = "(sensitive)"


def digest_key(api_key: str, lineage: str) -> bytes:
    return hashlib.sha256(f"planner-secret-digest\0{lineage}\0{api_key}".encode()).digest()


def secret_digest(key: bytes, name: str, value: str) -> str:
    mac = hmac.new(key, f"{name}\0{value}".encode(), hashlib.sha256).hexdigest()
    return f"hmac-sha256:{mac}"
