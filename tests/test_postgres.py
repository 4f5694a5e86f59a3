"""The PostgreSQL test fixture: a visible skip outside CI, a failure under CI."""

from __future__ import annotations

import pytest

from tests.postgres import (
    TEST_URL_ENV,
    require_postgres,
    unavailable_reason,
    url_password,
    with_a_password,
    with_database,
    with_login,
)


def test_no_server_skips_with_the_reason_outside_ci() -> None:
    """Without a server URL the PostgreSQL tests skip, saying how to get one."""
    with pytest.raises(pytest.skip.Exception, match="scripts/postgres-up"):
        require_postgres({})


def test_no_server_fails_under_ci() -> None:
    """Under CI=true a missing server is a failure, never a skip."""
    with pytest.raises(pytest.fail.Exception, match="required under CI"):
        require_postgres({"CI": "true"})


def test_unreachable_server_is_a_reason() -> None:
    """A URL nothing listens on is reported as unreachable (without the URL's password)."""
    reason = unavailable_reason({TEST_URL_ENV: "postgresql://u:pw-secret@127.0.0.1:1/db"})
    assert reason is not None and "not reachable" in reason and "pw-secret" not in reason


def test_with_database_replaces_only_the_database() -> None:
    """The per-session database keeps the server, role and password of the URL."""
    url = "postgresql://u:p@127.0.0.1:5432/planner_test?sslmode=disable"
    assert with_database(url, "x") == "postgresql://u:p@127.0.0.1:5432/x?sslmode=disable"


def test_reachable_server_needs_nothing(postgres_url: str) -> None:
    """With the session's server reachable, nothing is skipped."""
    assert unavailable_reason({TEST_URL_ENV: postgres_url}) is None


@pytest.mark.parametrize(
    ("url", "password", "login"),
    [
        (
            "postgresql://postgres@127.0.0.1:5432/planner_test",
            None,
            "postgresql://r:p@127.0.0.1:5432/planner_test",
        ),
        (
            "postgresql://u:p%40ss@db/x?sslmode=disable",
            "p@ss",
            "postgresql://r:p@db/x?sslmode=disable",
        ),
        ("postgresql://127.0.0.1/x", None, "postgresql://r:p@127.0.0.1/x"),
    ],
)
def test_url_parts_are_read_with_or_without_a_password(
    url: str, password: str | None, login: str
) -> None:
    """A trust-auth URL has no password (a role is not one), and another login keeps the
    server and database."""
    assert url_password(url) == password
    assert with_login(url, "r", "p") == login


def test_a_url_without_a_password_gets_a_made_up_one_for_password_checks() -> None:
    """A URL's own password is kept; a trust-auth URL gets a made-up one for its role."""
    own = "postgresql://u:secret@127.0.0.1:5432/x"
    assert with_a_password(own) == (own, "secret")
    url, password = with_a_password("postgresql://postgres@127.0.0.1:5432/x")
    assert url == f"postgresql://postgres:{password}@127.0.0.1:5432/x" and password
