"""Leases, fencing and reconnects of the PostgreSQL state against a real server: a lock
connection killed under its holder, `idle_session_timeout`, a dropped data connection,
tables of schema version 2 upgraded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from planner.state import StateDocument
from planner.state.oplog import group_of
from planner.state.postgres import PostgresBackend
from planner.state.postgres_schema import SCHEMA_VERSION
from tests.postgres import unique_name, url_password
from tests.state.contract import ENDPOINT, TENANT, sample_recorded
from tests.state.test_lease import wait_for_loss


@pytest.fixture
def backends() -> Iterator[list[PostgresBackend]]:
    made: list[PostgresBackend] = []
    yield made
    for backend in made:
        backend.close()


def _sql(url: str, statement: str, params: tuple[Any, ...] = ()) -> Any:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(statement, params).fetchone()


def _terminate(url: str, pid: int) -> None:
    """End server process PID as an administrator (or a pooler) would."""
    assert _sql(url, "SELECT pg_terminate_backend(%s)", (pid,)) == (True,)


def _lock_pid(url: str, name: str) -> int:
    row = _sql(
        url,
        "SELECT l.backend_pid FROM planner.locks l JOIN planner.states s "
        "ON s.id = l.state_id WHERE s.name = %s",
        (name,),
    )
    return int(row[0])


def _with_options(url: str, options: str) -> str:
    return f"{url}?options={options.replace(' ', '%20').replace('=', '%3D')}"


def test_killed_lock_connection_is_seen_by_its_holder(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """pg_terminate_backend of the lock's connection: the holder's next check raises
    LockLostError naming the cause, and a contender waits out its lease."""
    name = unique_name()
    owner = PostgresBackend(postgres_url, name=name)
    backends.append(owner)
    held = owner.lock("apply", lease=0.6)
    _terminate(postgres_url, _lock_pid(postgres_url, name))
    lost = wait_for_loss(held)
    assert "the state lock was lost" in lost.message
    password = url_password(postgres_url)
    assert "connection" in lost.message and (password is None or password not in lost.message)
    assert lost.code == "lock-lost"
    contender = PostgresBackend(postgres_url, name=name)
    backends.append(contender)
    notices: list[list[str]] = []
    with contender.lock("apply", timeout=5, on_wait=notices.append) as taken:
        assert taken.info.generation == held.info.generation + 1
    assert any("lease of a holder that stopped" in n[0] for n in notices), notices
    held.release()  # quietly: the loss was the error


def test_idle_session_timeout_never_fails_the_work(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """With idle_session_timeout shorter than the pauses of a run, the lock stays held
    and every read, append and write succeeds (the data connection reconnects)."""
    url = _with_options(postgres_url, "-c idle_session_timeout=300")
    backend = PostgresBackend(url, name=unique_name())
    backends.append(backend)
    with backend.lock("apply", lease=1.5) as held:
        doc = backend.write(StateDocument.new(ENDPOINT, TENANT))
        for step in range(2):
            time.sleep(0.6)  # past the timeout: the server ends the idle data connection
            doc.track_changes()
            doc.add_intent("create", f"agent-{step}")
            backend.append(group_of(doc, doc.take_changes()))
        time.sleep(0.6)
        doc.record(sample_recorded())
        backend.write(doc)
        held.check()  # the lock's own connection is exempt from the timeout
    stored = backend.read()
    assert stored is not None and list(stored.deployments) == ["support-agent"]
    assert [i.name for i in stored.pending] == ["agent-0", "agent-1"]


def test_dropped_data_connection_reconnects(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """A data connection terminated between two operations is replaced: the next append
    and write succeed, nothing twice."""
    backend = PostgresBackend(postgres_url, name=unique_name())
    backends.append(backend)
    doc = backend.write(StateDocument.new(ENDPOINT, TENANT))
    assert backend._conn is not None
    _terminate(postgres_url, backend._conn.info.backend_pid)
    doc.track_changes()
    doc.add_intent("create", "support-agent")
    backend.append(group_of(doc, doc.take_changes()))
    _terminate(postgres_url, backend._conn.info.backend_pid)
    doc.record(sample_recorded())
    written = backend.write(doc)
    stored = backend.read()
    assert stored is not None and stored.serial == written.serial == 2
    assert [i.name for i in stored.pending] == ["support-agent"]


def test_version_2_tables_gain_leases_and_generations(
    postgres_url: str, backends: list[PostgresBackend]
) -> None:
    """Tables of schema version 2 (no lease, no lock generation) are upgraded on first
    use: the state written before reads back and the lock counts generations."""
    schema = unique_name("s").replace("-", "_")
    first = PostgresBackend(postgres_url, name="app", schema=schema)
    backends.append(first)
    first.write(StateDocument.new(ENDPOINT, TENANT))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"ALTER TABLE {schema}.states DROP COLUMN lock_generation")
        for column in ("lease", "generation", "renewed"):
            conn.execute(f"ALTER TABLE {schema}.locks DROP COLUMN {column}")
        conn.execute(f"UPDATE {schema}.schema_version SET version = 2")
    later = PostgresBackend(postgres_url, name="app", schema=schema)
    backends.append(later)
    stored = later.read()
    assert stored is not None and stored.serial == 1
    with later.lock("apply") as held:
        assert held.info.generation == 1 and later.lock_info() == held.info
    row = _sql(postgres_url, f"SELECT version FROM {schema}.schema_version")
    assert row == (SCHEMA_VERSION,)
