"""Credentials stay in request headers; URLs are shown without user info."""

from __future__ import annotations

import httpx2
import pytest

from planner.api.auth import KeyAuth, check_base_url, display_url
from planner.errors import ConfigError
from tests.api.api_fakes import SECRET_KEY


def test_auth_adds_headers_and_hides_the_key():
    """The auth flow sets both headers; its repr shows no key."""
    auth = KeyAuth(SECRET_KEY, "t-1")
    request = next(auth.auth_flow(httpx2.Request("GET", "https://cp.example/v2/deployments")))
    assert request.headers["X-Api-Key"] == SECRET_KEY
    assert request.headers["X-Tenant-Id"] == "t-1"
    assert SECRET_KEY not in repr(auth)


def test_no_tenant_header_without_a_tenant():
    """Without a workspace, no X-Tenant-Id is sent (the key's only workspace applies)."""
    request = next(KeyAuth(SECRET_KEY, None).auth_flow(httpx2.Request("GET", "https://h/")))
    assert "X-Tenant-Id" not in request.headers


@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\x00"])
def test_a_key_that_is_no_header_value_is_refused_without_echoing_it(suffix: str):
    """A key with a trailing newline (or a control character) is a ConfigError without the key."""
    with pytest.raises(ConfigError) as caught:
        KeyAuth(SECRET_KEY + suffix, None)
    error = caught.value
    assert SECRET_KEY not in " ".join([error.message, *error.details, error.hint or ""])
    assert "PLANNER_API_KEY" in (error.hint or "")


def test_a_tenant_id_that_is_no_header_value_is_refused():
    """A workspace id with a line break is a ConfigError pointing at PLANNER_TENANT_ID."""
    with pytest.raises(ConfigError, match="workspace id"):
        KeyAuth(SECRET_KEY, "6f1c2c1e-0000-4000-8000-000000000001\n")


def test_display_url_drops_user_info_and_query():
    """User info, query and trailing slash never reach printed text."""
    shown = display_url("https://user:pw@cp.example/api-host/?token=x")
    assert shown == "https://cp.example/api-host"


def test_check_base_url_accepts_prefixed_https():
    """A self-hosted URL with a path prefix is valid; a bare host is not."""
    check_base_url("https://cp.example/api-host")
    with pytest.raises(ConfigError, match="need http"):
        check_base_url("cp.example")
