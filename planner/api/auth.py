"""Credentials and URLs: the key goes only into request headers, never into text.

`KeyAuth` adds `X-Api-Key` (and `X-Tenant-Id`) per request, so the key is in no default
header and no repr; `display_url` strips user info before a URL is printed anywhere.
"""

from __future__ import annotations

from typing import Any

import httpx

from planner.errors import ConfigError

URL_HINT = "pass --base-url, set PLANNER_BASE_URL or [control_plane].base_url"


class KeyAuth(httpx.Auth):
    """Adds `X-Api-Key` and `X-Tenant-Id` to each request; its repr hides the key."""

    def __init__(self, api_key: str, tenant_id: str | None) -> None:
        self._api_key = api_key
        self._tenant_id = tenant_id

    def auth_flow(self, request: httpx.Request) -> Any:
        request.headers["X-Api-Key"] = self._api_key
        if self._tenant_id:
            request.headers["X-Tenant-Id"] = self._tenant_id
        yield request

    def __repr__(self) -> str:
        return f"KeyAuth(api_key='***', tenant_id={self._tenant_id!r})"


def display_url(url: str) -> str:
    """The URL without user info or query, safe to print."""
    parsed = httpx.URL(url)
    return str(parsed.copy_with(userinfo=b"", query=None, fragment=None)).rstrip("/")


def check_base_url(base_url: str) -> None:
    """An http(s) URL with a host, else a `ConfigError`."""
    try:
        url = httpx.URL(base_url)
    except httpx.InvalidURL as exc:
        raise ConfigError(f"invalid control plane URL: {exc}", hint=URL_HINT) from None
    if url.scheme not in ("http", "https") or not url.host:
        shown = display_url(base_url) if url.host else base_url
        raise ConfigError(f"invalid control plane URL {shown!r}: need http(s)://host[/prefix]")
