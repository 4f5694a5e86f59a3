"""Credentials and URLs: the key goes only into request headers, never into text.

`KeyAuth` adds `X-Api-Key` (and `X-Tenant-Id`) per request, so the key is in no default
header and no repr; `display_url` strips user info before a URL is printed anywhere.
"""

from __future__ import annotations

from typing import Any

import httpx2

from planner.errors import ConfigError

URL_HINT = "pass --base-url, set PLANNER_BASE_URL or [control_plane].base_url"
_BODY_HEADERS = ("content-length", "content-encoding", "transfer-encoding")


class KeyAuth(httpx2.Auth):
    """Adds `X-Api-Key` and `X-Tenant-Id` to each request; its repr hides the key."""

    def __init__(self, api_key: str, tenant_id: str | None) -> None:
        # Checked here because the HTTP library's own error would quote the header value.
        if not is_header_value(api_key):
            raise ConfigError(
                "the API key is not a valid header value: it has a line break, a control "
                "character or whitespace at either end",
                hint="check PLANNER_API_KEY (a trailing newline from a file?)",
            )
        if tenant_id is not None and not is_header_value(tenant_id):
            raise ConfigError(
                f"the workspace id {tenant_id.strip()!r} has a line break, a control character "
                "or whitespace at either end",
                hint="check PLANNER_TENANT_ID or [control_plane].tenant_id",
            )
        self._api_key = api_key
        self._tenant_id = tenant_id

    def auth_flow(self, request: httpx2.Request) -> Any:
        for name, value in self.headers():
            request.headers[name] = value
        yield request

    def headers(self) -> list[tuple[str, str]]:
        """The headers this adds to every request, in order."""
        tenant = [("X-Tenant-Id", self._tenant_id)] if self._tenant_id else []
        return [("X-Api-Key", self._api_key), *tenant]

    def __repr__(self) -> str:
        return f"KeyAuth(api_key='***', tenant_id={self._tenant_id!r})"

    def scrubbed(self, response: httpx2.Response) -> httpx2.Response:
        """RESPONSE with the key replaced by `(sensitive)`, should a server echo it in an
        error body (the body becomes the error's message)."""
        key = self._api_key.encode()
        if key not in response.content:
            return response
        kept = {k: v for k, v in response.headers.items() if k.lower() not in _BODY_HEADERS}
        body = response.content.replace(key, b"(sensitive)")
        return httpx2.Response(response.status_code, headers=kept, content=body)


def is_header_value(value: str) -> bool:
    """True when `value` can be sent as an HTTP header value as it is."""
    controls = any((ord(c) < 0x20 and c != "\t") or ord(c) == 0x7F for c in value)
    return value == value.strip() and not controls


def display_url(url: str) -> str:
    """The URL without user info or query, safe to print."""
    parsed = httpx2.URL(url)
    return str(parsed.copy_with(userinfo=b"", query=None, fragment=None)).rstrip("/")


def check_base_url(base_url: str) -> None:
    """An http(s) URL with a host, else a `ConfigError`."""
    try:
        url = httpx2.URL(base_url)
    except httpx2.InvalidURL as exc:
        raise ConfigError(f"invalid control plane URL: {exc}", hint=URL_HINT) from None
    if url.scheme not in ("http", "https") or not url.host:
        shown = display_url(base_url) if url.host else base_url
        raise ConfigError(f"invalid control plane URL {shown!r}: need http(s)://host[/prefix]")
