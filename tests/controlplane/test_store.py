"""The SQLite store: persistence across restarts, WAL, transactions, workspace scoping."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.controlplane.service import Conflict, Deployments, NotFound
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import DeploymentFilter, Store
from tests.controlplane.core_fixtures import FakeClock, git_host_body

TENANT_A = "00000000-0000-4000-8000-00000000000a"
TENANT_B = "00000000-0000-4000-8000-00000000000b"


def settings_for(path: Path, clock: FakeClock) -> ServerSettings:
    return ServerSettings(
        db_path=path, build_seconds=0.2, deploy_seconds=0.2, delete_seconds=1.0, clock=clock
    )


def create(deployments: Deployments, name: str) -> dict[str, object]:
    return deployments.create(DeploymentCreate.model_validate(git_host_body(name)))


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
    assert again.get(str(doomed["id"]))["status"] == "AWAITING_DELETE"
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
    assert service.get(str(created["id"]))["status"] != "AWAITING_DELETE"
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
    only_b = b.list_page(DeploymentFilter(deployment_ids=[mine_id, str(theirs["id"])]), 100, 0)
    assert [d["id"] for d in only_b["resources"]] == [theirs["id"]]
    assert [p["deployment_id"] for p in b.tracing_projects()] == [theirs["id"]]
    assert a.get(mine_id)["status"] == "AWAITING_DATABASE"
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
    assert Deployments(second, settings, TENANT_A).get(str(created["id"]))["name"] == "shared"
    first.close()
    second.close()
