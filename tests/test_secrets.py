"""URL redaction: the one way a URL that may carry a password is shown or saved."""

from __future__ import annotations

import pytest

from planner.secrets import redact_url, url_has_password, url_without_password


@pytest.mark.parametrize(
    ("url", "masked", "bare"),
    [
        (
            "postgresql://team:s3cret@db:5432/infra",
            "postgresql://team:***@db:5432/infra",
            "postgresql://team@db:5432/infra",
        ),
        (
            "postgresql://db/infra?password=s3cret&sslmode=require",
            "postgresql://db/infra?password=***&sslmode=require",
            "postgresql://db/infra?sslmode=require",
        ),
        (
            "postgresql://team:p%40ss@db/infra",
            "postgresql://team:***@db/infra",
            "postgresql://team@db/infra",
        ),
    ],
)
def test_redact_url_masks_every_password_spelling(url: str, masked: str, bare: str) -> None:
    """A password in the user info or a `password=` parameter is masked or left out."""
    assert (redact_url(url), url_without_password(url)) == (masked, bare)
    assert url_has_password(url)


@pytest.mark.parametrize("url", ["postgresql://team@db/infra", "state/x.state.json"])
def test_urls_without_password_are_unchanged(url: str) -> None:
    """A URL without a password, or a file path, is left as it is."""
    assert redact_url(url) == url_without_password(url) == url
    assert not url_has_password(url)


def test_an_unparsable_url_is_printed_as_its_scheme_only() -> None:
    """A URL urlsplit refuses (an IPv6 host without "]") is masked whole, never raised on."""
    url = "postgresql://u:SECRETPW4@[::1/db"
    assert redact_url(url) == "postgresql://***"
    assert "SECRETPW4" not in url_without_password(url)
