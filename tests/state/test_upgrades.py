"""Upgrades: states written by the release before this one (golden files in
tests/state/golden/state-v1, never regenerated: a state file with its journal, and the
PostgreSQL tables of schema version 2 as pg_dump printed them, both left by an apply
killed after a create was sent) are read by this release and upgraded on its next write."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import psycopg
import pytest

from planner.errors import StateError
from planner.state import LocalFileBackend, StateDocument
from planner.state.document import FORMAT_VERSION, compute_checksum
from planner.state.postgres import PostgresBackend
from planner.state.postgres_schema import SCHEMA_VERSION

GOLDEN = Path(__file__).parent / "golden" / "state-v1"


def assert_as_left(doc: StateDocument | None) -> StateDocument:
    """What the killed apply left: api and worker recorded at serial 2, and its log
    replayed on top: a create of web and a PATCH of worker journalled, neither recorded."""
    assert doc is not None and doc.serial == 2
    assert sorted(doc.deployments) == ["api", "worker"]
    assert doc.deployments["api"].secret_digests["API_TOKEN"].startswith("hmac-sha256:")
    assert sorted((i.op, i.name) for i in doc.pending) == [("create", "web"), ("update", "worker")]
    return doc


def file_state(tmp_path: Path) -> Path:
    for name in ("planner.state.json", "planner.state.json.journal"):
        shutil.copy(GOLDEN / name, tmp_path / name)
    return tmp_path / "planner.state.json"


def test_a_file_state_of_the_last_release_is_read_with_its_journal(tmp_path: Path) -> None:
    """The state file and its operation log are read as that release wrote them."""
    doc = assert_as_left(LocalFileBackend(file_state(tmp_path)).read())
    assert doc.replayed == 2


def test_a_file_state_of_the_last_release_is_upgraded_on_the_next_write(tmp_path: Path) -> None:
    """The next write folds the journal into a version of this release's format, holding
    the same deployments and intents, and the previous file stays as the backup."""
    path = file_state(tmp_path)
    backend = LocalFileBackend(path)
    doc = assert_as_left(backend.read())
    with backend.lock("apply"):
        backend.write(doc)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["format_version"] == FORMAT_VERSION and raw["serial"] == 3
    assert not path.with_name(path.name + ".journal").exists()
    assert path.with_name(path.name + ".backup").read_bytes() == (GOLDEN / path.name).read_bytes()
    again = LocalFileBackend(path).read()
    assert again is not None and again.deployments == doc.deployments
    assert again.pending == doc.pending


def test_a_newer_state_format_is_refused_naming_it(tmp_path: Path) -> None:
    """A state file of a format newer than this release knows is refused, as before."""
    path = file_state(tmp_path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["format_version"] = FORMAT_VERSION + 1
    raw["checksum"] = compute_checksum({k: v for k, v in raw.items() if k != "checksum"})
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(StateError, match=f"format_version {FORMAT_VERSION + 1}, which this"):
        LocalFileBackend(path).read()


@pytest.fixture
def golden_schema(postgres_url: str) -> str:
    """The golden tables loaded into a schema of their own; its name."""
    schema = f"golden_{uuid.uuid4().hex[:8]}"
    dump = (GOLDEN / "postgres-schema-v2.sql").read_text(encoding="utf-8")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(dump.replace("golden_v1", schema).encode())
    return schema


def test_a_postgres_state_of_the_last_release_is_read_and_upgraded(
    postgres_url: str, golden_schema: str
) -> None:
    """Tables of schema version 2 with a version and its operation rows are read as that
    release wrote them; the next write (under the lock a dead holder left) brings the
    tables to this release's schema version and folds the operations into a new version."""
    backend = PostgresBackend(postgres_url, name="app", schema=golden_schema)
    try:
        doc = assert_as_left(backend.read())
        with backend.lock("apply"):
            backend.write(doc)
        again = PostgresBackend(postgres_url, name="app", schema=golden_schema)
        upgraded = again.read()
        again.close()
    finally:
        backend.close()
    assert upgraded is not None and upgraded.serial == 3 and upgraded.replayed == 0
    assert upgraded.deployments == doc.deployments
    assert upgraded.pending == doc.pending
    with psycopg.connect(postgres_url) as conn:
        version = conn.execute(f"SELECT version FROM {golden_schema}.schema_version".encode())
        left = conn.execute(f"SELECT count(*) FROM {golden_schema}.operations".encode())
        counted = (version.fetchone(), left.fetchone())
    assert counted == ((SCHEMA_VERSION,), (0,))
