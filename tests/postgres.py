"""A real PostgreSQL for the tests: one database per test session (per xdist worker).

The server comes from $PLANNER_TEST_POSTGRES_URL (`.ci/run` starts one with
`scripts/postgres-up`), with a password or without one (a server that trusts the role:
`postgresql://postgres@127.0.0.1:5432/planner_test`); read a URL's parts with
`urllib.parse.urlsplit` (`url_password`), never by splitting it on `@` or `:`. Without a
reachable server the tests that need it skip, with the reason; under CI (`CI=true`) that
is a failure, never a skip.
"""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Iterator, Mapping
from urllib.parse import unquote, urlsplit, urlunsplit

import pytest

TEST_URL_ENV = "PLANNER_TEST_POSTGRES_URL"


def unavailable_reason(environ: Mapping[str, str]) -> str | None:
    """Why PostgreSQL tests cannot run here (None: they can)."""
    url = environ.get(TEST_URL_ENV)
    if not url:
        return f"no PostgreSQL server: {TEST_URL_ENV} is not set (run scripts/postgres-up)"
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install -e '.[dev]')"
    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.Error as error:
        return f"PostgreSQL at {TEST_URL_ENV} is not reachable: {type(error).__name__}"
    return None


def require_postgres(environ: Mapping[str, str]) -> None:
    """Skip (or, under CI, fail) when PostgreSQL tests cannot run."""
    reason = unavailable_reason(environ)
    if reason is None:
        return
    if environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL is required under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def with_database(url: str, database: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


def url_password(url: str) -> str | None:
    """The password URL carries, decoded (None: the server trusts the role, or libpq finds
    the password elsewhere)."""
    password = urlsplit(url).password
    return None if password is None else unquote(password)


def with_a_password(url: str) -> tuple[str, str]:
    """URL carrying a password, and that password: its own, or a made-up one added to a
    URL without (a server that trusts the role ignores it), so a test can check that a
    state URL's password never shows, whichever way the test server logs in."""
    password = url_password(url)
    if password:
        return url, password
    made_up = "pw-made-up-for-a-trusting-server"
    user = urlsplit(url).username or getpass.getuser()
    return with_login(url, user, made_up), made_up


def with_login(url: str, user: str, password: str) -> str:
    """URL with another role and password, the same server and database."""
    parts = urlsplit(url)
    server = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{user}:{password}@{server}"))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a database of its own for this session (dropped afterwards)."""
    require_postgres(os.environ)
    import psycopg

    server = os.environ[TEST_URL_ENV]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database = f"planner_t_{worker}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    try:
        yield with_database(server, database)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def unique_name(prefix: str = "state") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
