"""State format 2 (holds): golden states of the release that introduced it
(tests/state/golden/state-v2, never regenerated; made by `planner apply` twice, a
`planner rollback worker`, and a `planner rollback api` killed before its redeploy was
sent) are read with their hold and journalled redeploy, and written again as they hold;
a state of format 1 is upgraded to 2 on its next write, a hold added or not."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import psycopg
import pytest

from planner.state import LocalFileBackend, StateDocument
from planner.state.document import FORMAT_VERSION, utc_now
from planner.state.holds import held, new_hold
from planner.state.postgres import PostgresBackend

GOLDEN = Path(__file__).parent / "golden"
WORKER_HELD_AT = "2d3f2ff0-e83e-4ff2-8f43-5c5c2e03e391"


def assert_as_left(doc: StateDocument | None) -> StateDocument:
    """worker held (revision, since, who), api not, and api's redeploy journalled with
    what tells later whether it happened."""
    assert doc is not None and doc.format_version == 2 and doc.serial == 4
    hold = doc.deployments["worker"].held
    assert hold is not None and (hold.revision_id, hold.by) == (WORKER_HELD_AT, "root@vm")
    assert hold.since == "2026-11-29T05:57:02Z" and doc.deployments["api"].held is None
    [intent] = doc.pending
    assert (intent.op, intent.name) == ("redeploy", "api")
    assert set(intent.details) == {"revision_id", "fields", "latest_revision_id", "by"}
    return doc


def copied(tmp_path: Path, folder: str) -> Path:
    for name in ("planner.state.json", "planner.state.json.journal"):
        shutil.copy(GOLDEN / folder / name, tmp_path / name)
    return tmp_path / "planner.state.json"


def test_a_file_state_of_format_2_is_read_with_its_hold_and_journal(tmp_path: Path) -> None:
    """The state file and its operation log read back as that release wrote them."""
    doc = assert_as_left(LocalFileBackend(copied(tmp_path, "state-v2")).read())
    assert doc.replayed == 1


def test_a_file_state_of_format_2_is_written_again_as_it_holds(tmp_path: Path) -> None:
    """The next write folds the log into a version of format 2 holding the same hold and
    intent; the file then reads back equal."""
    path = copied(tmp_path, "state-v2")
    backend = LocalFileBackend(path)
    doc = assert_as_left(backend.read())
    with backend.lock("apply"):
        backend.write(doc)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert (raw["format_version"], raw["serial"]) == (FORMAT_VERSION, 5)
    again = LocalFileBackend(path).read()
    assert again is not None and again.deployments == doc.deployments
    assert again.pending == doc.pending


def test_a_file_state_of_format_1_is_upgraded_with_a_hold(tmp_path: Path) -> None:
    """A state of the release before holds, given a hold, is written in format 2 with it."""
    path = copied(tmp_path, "state-v1")
    backend = LocalFileBackend(path)
    doc = backend.read()
    assert doc is not None and doc.format_version == 1
    hold = new_hold("rev-1", "ops@laptop", utc_now())
    doc.record(held(doc.get("worker"), hold))
    with backend.lock("rollback"):
        backend.write(doc)
    again = LocalFileBackend(path).read()
    assert again is not None and again.format_version == 2
    assert again.deployments["worker"].held == hold


@pytest.fixture
def golden_schema(postgres_url: str) -> str:
    """The golden tables of state-v2 loaded into a schema of their own; its name."""
    schema = f"golden_{uuid.uuid4().hex[:8]}"
    dump = (GOLDEN / "state-v2" / "postgres-schema-v3.sql").read_text(encoding="utf-8")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(dump.replace("golden_v2", schema).encode())
    return schema


def test_a_postgres_state_of_format_2_is_read_and_written_again(
    postgres_url: str, golden_schema: str
) -> None:
    """Tables of schema version 3 holding a version of format 2 and its operation row
    read back with the hold and the journalled redeploy, and the next write keeps both."""
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
    assert upgraded is not None and upgraded.serial == 5 and upgraded.replayed == 0
    assert upgraded.deployments == doc.deployments and upgraded.pending == doc.pending
