"""The PostgreSQL backend against a real server: the contract, schema versions, dead holders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from planner.errors import LockLostError, StateError, StateLockedError
from planner.state import StateDocument
from planner.state.oplog import group_of
from planner.state.postgres import PostgresBackend
from planner.state.postgres_schema import LOCK_CLASSID, SCHEMA_VERSION
from tests.postgres import unique_name, url_password, with_login
from tests.state.contract import ENDPOINT, TENANT, BackendContract, Harness, edit_json_text


@pytest.fixture
def backends(postgres_url: str) -> Iterator[list[PostgresBackend]]:
    """Backends opened by a test, closed after it."""
    opened: list[PostgresBackend] = []
    yield opened
    for backend in opened:
        backend.close()


@pytest.fixture
def harness(postgres_url: str, backends: list[PostgresBackend]) -> Harness:
    name = unique_name()

    def open_backend(state: str = name) -> PostgresBackend:
        backends.append(PostgresBackend(postgres_url, name=state))
        return backends[-1]

    def stored_text() -> str:
        row = _sql(
            postgres_url,
            "SELECT v.document FROM planner.versions v JOIN planner.states s ON s.id = v.state_id "
            "WHERE s.name = %s ORDER BY v.serial DESC LIMIT 1",
            (name,),
        )
        return str(row[0])

    def edit_stored(edit: Any) -> None:
        _sql(
            postgres_url,
            "UPDATE planner.versions SET document = %s WHERE state_id = "
            "(SELECT id FROM planner.states WHERE name = %s) AND serial = "
            "(SELECT max(serial) FROM planner.versions v JOIN planner.states s "
            "ON s.id = v.state_id WHERE s.name = %s) RETURNING 1",
            (edit_json_text(stored_text(), edit), name, name),
        )

    return Harness(
        backend=open_backend(),
        peer=open_backend,
        edit_stored=edit_stored,
        stored_text=stored_text,
        other_state=lambda: open_backend(unique_name("other")),
    )


def _sql(url: str, statement: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(statement, params).fetchone()


class TestPostgresBackend(BackendContract):
    """The contract, for PostgresBackend."""


def test_newer_schema_version_refused(postgres_url: str, backends: list[PostgresBackend]) -> None:
    """Tables of a newer schema version than the code knows are refused, naming both."""
    schema = unique_name("s").replace("-", "_")
    backends.append(PostgresBackend(postgres_url, name="app", schema=schema))
    backends[0].write(StateDocument.new(ENDPOINT, TENANT))
    _sql(postgres_url, f"UPDATE {schema}.schema_version SET version = 99 RETURNING 1")
    later = PostgresBackend(postgres_url, name="app", schema=schema)
    backends.append(later)
    with pytest.raises(StateError, match=f"schema version 99.*knows version {SCHEMA_VERSION}"):
        later.read()


def test_tables_created_once_with_version(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """First use creates the schema's tables and records the schema version."""
    schema = unique_name("s").replace("-", "_")
    backends.append(PostgresBackend(postgres_url, name="app", schema=schema))
    assert backends[0].read() is None
    row = _sql(postgres_url, f"SELECT version FROM {schema}.schema_version")
    assert row == (SCHEMA_VERSION,)
    assert f"#{schema}/app" in backends[0].location


def test_version_1_tables_get_the_operations_table(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """Tables of schema version 1 (no operation log) are upgraded on first use: the
    stored version reads back, and operations can be appended to it."""
    schema = unique_name("s").replace("-", "_")
    backends.append(PostgresBackend(postgres_url, name="app", schema=schema))
    doc = StateDocument.new(ENDPOINT, TENANT)
    backends[0].write(doc)
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {schema}.operations")
    _sql(postgres_url, f"UPDATE {schema}.schema_version SET version = 1 RETURNING 1")
    later = PostgresBackend(postgres_url, name="app", schema=schema)
    backends.append(later)
    doc.track_changes()
    doc.add_intent("create", "support-agent")
    later.append(group_of(doc, doc.take_changes()))
    stored = later.read()
    assert stored is not None and [i.name for i in stored.pending] == ["support-agent"]
    assert _sql(postgres_url, f"SELECT version FROM {schema}.schema_version") == (SCHEMA_VERSION,)


def test_terminated_holder_connection_frees_lock(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """When the holder's connection dies, PostgreSQL frees the lock; its row is stale."""
    name = unique_name()
    owner, contender = (
        PostgresBackend(postgres_url, name=name),
        PostgresBackend(postgres_url, name=name),
    )
    backends += [owner, contender]
    held = owner.lock("apply", lease=0.3)
    with pytest.raises(StateLockedError):
        contender.lock("plan")
    _sql(
        postgres_url,
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
        "AND classid::text::bigint = %s AND objid::text::bigint = "
        "(SELECT id FROM planner.states WHERE name = %s)",
        (LOCK_CLASSID, name),
    )
    with contender.lock("plan", timeout=10) as again:
        assert again.info.operation == "plan"
    with pytest.raises(LockLostError):
        held.check()  # its heartbeat found the connection gone
    held.release()  # a lock seen lost is released quietly: the loss was the error


def test_location_and_errors_never_show_the_password(postgres_url: str) -> None:
    """The location masks the password, and a failed login does not print it (a role the
    server does not know fails whether it asks for passwords or trusts its roles)."""
    password = "pw-never-shown-0451"
    bad = with_login(postgres_url, "planner-no-such-role", password)
    backend = PostgresBackend(bad, name="app")
    assert ":***@" in backend.location and password not in backend.location
    with pytest.raises(StateError) as caught:
        backend.read()
    shown = str(caught.value) + " ".join(caught.value.details) + (caught.value.hint or "")
    assert "planner-no-such-role" in shown and password not in shown
    real = url_password(postgres_url)
    assert real is None or real not in shown


def test_a_write_does_not_replay_the_operations_it_replaces(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """A write compares with the stored version alone, as a file's write reads the file
    without its log: the operations it replaces are not replayed (a second copy of the
    whole state), so a damaged one goes with them instead of refusing the write."""
    backend = PostgresBackend(postgres_url, name=unique_name())
    backends.append(backend)
    doc = StateDocument.new(ENDPOINT, TENANT)
    backend.write(doc)
    _sql(
        postgres_url,
        "INSERT INTO planner.operations (state_id, base_serial, line) "
        "SELECT id, 1, %s FROM planner.states WHERE name = %s RETURNING 1",
        ("not json\n" + group_of(doc, [{"forget": "x"}]).line(), backend.name),
    )
    with pytest.raises(StateError, match="damaged"):
        backend.read()
    written = backend.write(doc)
    assert written.serial == 2 and backend.read() == written
