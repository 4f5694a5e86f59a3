"""Keyed digests of secret values: the only form in which a secret is ever persisted.

The key is derived from the API key and the state's lineage, so a digest is worthless to
anyone who cannot already read the secrets through the API, and changes per state file.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit, urlunsplit

SENSITIVE = "(sensitive)"


def digest_key(api_key: str, lineage: str) -> bytes:
    return hashlib.sha256(f"planner-secret-digest\0{lineage}\0{api_key}".encode()).digest()


def secret_digest(key: bytes, name: str, value: str) -> str:
    mac = hmac.new(key, f"{name}\0{value}".encode(), hashlib.sha256).hexdigest()
    return f"hmac-sha256:{mac}"


PASSWORD_MASK = "***"


def redact_url(url: str) -> str:
    """URL with any password (in the user info or a `password=` parameter) masked: the one
    way a URL that may carry a password is printed, logged or saved."""
    return _replace_password(url, PASSWORD_MASK)


def url_without_password(url: str) -> str:
    """URL with its password left out (libpq then reads PGPASSWORD or ~/.pgpass)."""
    return _replace_password(url, None)


def url_has_password(url: str) -> bool:
    return redact_url(url) != url


def _replace_password(url: str, mask: str | None) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:  # unparsable (`[::1/db`): nothing of it is printed but its scheme
        return f"{url.partition('://')[0]}://{PASSWORD_MASK}"
    netloc = parts.netloc
    user_info, at, host = netloc.rpartition("@")
    if at and ":" in user_info:
        user = user_info.split(":", 1)[0]
        netloc = f"{user}:{mask}@{host}" if mask is not None else f"{user}@{host}"
    params = [_masked_param(param, mask) for param in parts.query.split("&") if param]
    query = "&".join(param for param in params if param is not None)
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def _masked_param(param: str, mask: str | None) -> str | None:
    if param.partition("=")[0].lower() != "password":
        return param
    return None if mask is None else f"password={mask}"
