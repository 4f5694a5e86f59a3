"""The SQLite store: persistence across restarts, WAL, transactions, workspace scoping,
lock-free reads, and the query plan of every list shape."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import uuid
from pathlib import Path
from typing import Any

import pytest

from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.controlplane.pages import page_sql
from planner.controlplane.service import Conflict, Deployments, NotFound
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import DeploymentFilter, Store
from planner.controlplane.store.reads import Snapshot
from tests.controlplane.core_fixtures import FakeClock, git_host_body

TENANT_A = "00000000-0000-4000-8000-00000000000a"
TENANT_B = "00000000-0000-4000-8000-00000000000b"


def settings_for(path: Path, clock: FakeClock) -> ServerSettings:
    return ServerSettings(
        db_path=path, build_seconds=0.2, deploy_seconds=0.2, delete_seconds=1.0, clock=clock
    )


def create(deployments: Deployments, name: str) -> dict[str, Any]:
    created: dict[str, Any] = json.loads(
        deployments.create(DeploymentCreate.model_validate(git_host_body(name)))
    )
    return created


def got(deployments: Deployments, deployment_id: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(deployments.get(deployment_id))
    return found


def listed(deployments: Deployments, where: DeploymentFilter) -> list[dict[str, Any]]:
    page: list[dict[str, Any]] = json.loads(deployments.list_page(where, 10, 0))["resources"]
    return page


def test_everything_survives_a_restart(tmp_path: Path) -> None:
    """Close the store, reopen the same file: deployments, revisions, skips, deletions remain."""
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    kept = create(service, "kept")
    service.patch(
        str(kept["id"]), DeploymentPatch.model_validate({"secrets": [{"name": "A", "value": "1"}]})
    )
    doomed = create(service, "doomed")
    service.delete([str(doomed["id"])])
    before = (service.get(str(kept["id"])), service.list_revisions(str(kept["id"]), 100, 0))
    projects = service.tracing_projects()
    store.close()

    reopened = Store(settings)
    again = Deployments(reopened, settings, TENANT_A)
    assert (again.get(str(kept["id"])), again.list_revisions(str(kept["id"]), 100, 0)) == before
    assert got(again, str(doomed["id"]))["status"] == "AWAITING_DELETE"
    assert again.tracing_projects() == projects
    clock.advance(1.0)
    with pytest.raises(NotFound):
        again.get(str(doomed["id"]))
    reopened.close()


def test_file_is_in_wal_mode(tmp_path: Path) -> None:
    """The database file uses write-ahead logging."""
    store = Store(settings_for(tmp_path / "cp.db", FakeClock()))
    with sqlite3.connect(tmp_path / "cp.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_database_files_are_owner_only(tmp_path: Path) -> None:
    """The database (which holds secret values) and its WAL files are created mode 0600,
    whatever the umask."""
    old_umask = os.umask(0)
    try:
        settings = settings_for(tmp_path / "cp.db", FakeClock())
        store = Store(settings)
        create(Deployments(store, settings, TENANT_A), "a")
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("cp.db*")}
        store.close()
    finally:
        os.umask(old_umask)
    assert modes["cp.db"] == 0o600
    assert all(mode == 0o600 for mode in modes.values()), modes


def test_a_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    """An error inside a transaction rolls back every write made in it."""
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    created = create(service, "one")
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.mark_deleting([str(created["id"])], clock(), clock() + 1)
        raise RuntimeError("boom")
    assert got(service, str(created["id"]))["status"] != "AWAITING_DELETE"
    store.close()


def test_workspaces_never_see_each_other(tmp_path: Path) -> None:
    """One workspace cannot read, list, patch or delete another's deployment; names may repeat."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    store = Store(settings)
    a = Deployments(store, settings, TENANT_A)
    b = Deployments(store, settings, TENANT_B)
    mine = create(a, "shared-name")
    theirs = create(b, "shared-name")
    assert mine["tenant_id"] == TENANT_A and theirs["tenant_id"] == TENANT_B
    mine_id = str(mine["id"])
    with pytest.raises(NotFound):
        b.get(mine_id)
    with pytest.raises(NotFound):
        b.patch(mine_id, DeploymentPatch())
    with pytest.raises(NotFound):
        b.delete([mine_id])
    with pytest.raises(NotFound):
        b.list_revisions(mine_id, 10, 0)
    only_b = listed(b, DeploymentFilter(deployment_ids=[mine_id, str(theirs["id"])]))
    assert [d["id"] for d in only_b] == [theirs["id"]]
    assert [p["deployment_id"] for p in b.tracing_projects()] == [theirs["id"]]
    assert got(a, mine_id)["status"] == "AWAITING_DATABASE"
    with pytest.raises(Conflict):
        create(a, "shared-name")
    store.close()


def test_purge_removes_revisions_and_tracing_projects(tmp_path: Path) -> None:
    """Once a deletion is due, no row of the deployment is left in any table."""
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    created = create(service, "gone")
    service.delete([str(created["id"])])
    clock.advance(1.0)
    with store.transaction() as tx:
        assert tx.count_deployments(TENANT_A) == 0
    store.close()
    with sqlite3.connect(tmp_path / "cp.db") as conn:
        for table in ("deployments", "revisions", "tracing_projects"):
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


def test_two_stores_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    """Two processes' worth of stores on one file share their committed writes."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    first, second = Store(settings), Store(settings)
    created = create(Deployments(first, settings, TENANT_A), "shared")
    assert got(Deployments(second, settings, TENANT_A), str(created["id"]))["name"] == "shared"
    first.close()
    second.close()


def query_plan(tx: Snapshot, sql: str, params: Any = ()) -> list[str]:
    """The details of EXPLAIN QUERY PLAN, one line per step."""
    return [str(row[3]) for row in tx.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


IDS = [str(uuid.uuid4()) for _ in range(100)]


@pytest.mark.parametrize(
    ("where", "index"),
    [
        (DeploymentFilter(), "USING COVERING INDEX deployments_by_tenant (tenant_id=?)"),
        (DeploymentFilter(deployment_ids=IDS), "USING INDEX sqlite_autoindex_deployments_1 (id=?)"),
        (
            DeploymentFilter(deployment_ids=IDS, name_contains="a", status="READY"),
            "USING INDEX sqlite_autoindex_deployments_1 (id=?)",
        ),
        (
            DeploymentFilter(name_contains="a"),
            "USING INDEX sqlite_autoindex_deployments_2 (tenant_id=?)",
        ),
        (DeploymentFilter(status="READY"), "USING INDEX deployments_by_tenant (tenant_id=?)"),
        (
            DeploymentFilter(name_contains="a", deployment_type="dev", image_version="1"),
            "USING INDEX deployments_by_tenant (tenant_id=?)",
        ),
    ],
)
def test_each_list_shape_seeks_its_index(
    tmp_path: Path, where: DeploymentFilter, index: str
) -> None:
    """Every list query seeks its intended index, reads whole rows only for the page (by
    rowid), and never scans the table: ids by primary key, names in the unique name index,
    the rest along the workspace's page order (where OFFSET skips index entries)."""
    store = Store(settings_for(tmp_path / "cp.db", FakeClock()))
    sql, params = page_sql(where)
    params.update(tenant_id=TENANT_A, now=0.0, limit=100, offset=29_900)
    with store.snapshot() as tx:
        plan = query_plan(tx, sql, params)
    store.close()
    assert f"SEARCH deployments {index}" in plan, plan
    assert "SEARCH d USING INTEGER PRIMARY KEY (rowid=?)" in plan, plan
    assert not [step for step in plan if step.startswith("SCAN") and step != "SCAN page"], plan


def test_no_query_of_a_workload_scans_a_table(tmp_path: Path) -> None:
    """Each statement a create, PATCH, get, list, revision read and delete run seeks an
    index (the local-only tracing project listing reads its whole table on purpose)."""
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    statements: list[str] = []
    with store.snapshot() as tx:
        tx.conn.set_trace_callback(statements.append)
    created = str(create(service, "traced")["id"])
    service.patch(
        created, DeploymentPatch.model_validate({"secrets": [{"name": "A", "value": "1"}]})
    )
    service.get(created)
    service.list_page(DeploymentFilter(), 10, 0)
    service.list_revisions(created, 10, 0)
    service.delete([created])
    clock.advance(5.0)
    service.list_page(DeploymentFilter(deployment_ids=[created]), 10, 0)
    queries = [s for s in statements if s.split()[0] in ("SELECT", "UPDATE", "DELETE")]
    with store.snapshot() as tx:
        tx.conn.set_trace_callback(None)
        scans = [(q, step) for q in queries for step in query_plan(tx, q) if is_table_scan(step)]
    store.close()
    assert len(queries) > 10 and scans == []


def is_table_scan(step: str) -> bool:
    return step.startswith("SCAN") and step.split()[1] in ("deployments", "revisions", "d")


def test_reads_take_no_lock_while_another_connection_writes(tmp_path: Path) -> None:
    """A get and a list answer while another process holds the write lock, from the last
    committed state; the writer then commits unhindered."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    created = str(create(service, "read-me")["id"])
    writer = sqlite3.connect(tmp_path / "cp.db", isolation_level=None, timeout=0.0)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE deployments SET name = 'renamed'")
    assert got(service, created)["name"] == "read-me"
    assert [d["name"] for d in listed(service, DeploymentFilter())] == ["read-me"]
    writer.execute("COMMIT")
    writer.close()
    assert got(service, created)["name"] == "renamed"
    store.close()


def test_a_due_deletion_is_gone_from_reads(tmp_path: Path) -> None:
    """Once its deletion is due, a deployment is purged before the next read lists it."""
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    doomed = str(create(service, "doomed")["id"])
    create(service, "kept")
    service.delete([doomed])
    clock.advance(1.0)
    found = listed(service, DeploymentFilter())
    assert [d["name"] for d in found] == ["kept"]
    with sqlite3.connect(tmp_path / "cp.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM revisions").fetchone()[0] == 1
    store.close()


def test_commits_are_durable_to_a_process_crash_without_an_fsync_each(tmp_path: Path) -> None:
    """The store runs WAL with synchronous=NORMAL (1): no fsync per commit, and a committed
    write survives the process (a second connection reads it from the WAL)."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    store = Store(settings)
    created = str(create(Deployments(store, settings, TENANT_A), "durable")["id"])
    with store.snapshot() as tx:
        assert tx.conn.execute("PRAGMA synchronous").fetchone()[0] == 1
        assert tx.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 4000
    with sqlite3.connect(tmp_path / "cp.db") as conn:
        found = conn.execute("SELECT name FROM deployments WHERE id = ?", (created,)).fetchone()
    assert found == ("durable",)
    store.close()


def batched_create(service: Deployments, name: str) -> str:
    body = DeploymentCreate.model_validate(git_host_body(name))
    return str(json.loads(service.create(body, batched=True))["id"])


def committed_names(path: Path) -> list[str]:
    """What another connection (another process) sees."""
    with sqlite3.connect(path) as conn:
        return sorted(row[0] for row in conn.execute("SELECT name FROM deployments"))


@pytest.mark.anyio
async def test_batched_creates_of_one_turn_commit_together(tmp_path: Path) -> None:
    """Creates of one turn of the loop are committed by one COMMIT at its next turn: none is
    visible to another connection before it, all are after; a failing one rolls back alone."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    batched_create(service, "one")
    with pytest.raises(Conflict):
        batched_create(service, "one")
    batched_create(service, "two")
    committed = store.batch_committed()
    assert not committed.done() and committed_names(tmp_path / "cp.db") == []
    await committed
    assert committed_names(tmp_path / "cp.db") == ["one", "two"]
    assert store.batch_committed().done()  # nothing open: done at once
    store.close()


@pytest.mark.anyio
async def test_any_other_unit_of_work_commits_the_batch_first(tmp_path: Path) -> None:
    """A read or a write between a batched create and its COMMIT commits the batch first:
    it sees the create, and the create's waiter is settled."""
    settings = settings_for(tmp_path / "cp.db", FakeClock())
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    created = batched_create(service, "early")
    committed = store.batch_committed()
    assert got(service, created)["name"] == "early"
    assert committed_names(tmp_path / "cp.db") == ["early"]
    await committed
    batched_create(service, "late")
    waiting = store.batch_committed()
    store.close()  # commits what is open
    await waiting
    assert committed_names(tmp_path / "cp.db") == ["early", "late"]
