"""A plain listing's pages seek where the previous page ended (`store.PageStarts`), and
`offset` keeps its meaning when rows are added or removed between pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner.controlplane.pages import page_sql
from planner.controlplane.service import Deployments
from planner.controlplane.store import DeploymentFilter, PageStarts, Store
from tests.controlplane.core_fixtures import FakeClock
from tests.controlplane.test_store import TENANT_A, TENANT_B, create, query_plan, settings_for

PAGE = 3


def page(service: Deployments, offset: int, limit: int = PAGE) -> tuple[list[str], int]:
    """The names on the page at OFFSET, and the offset it returns."""
    found: dict[str, Any] = json.loads(service.list_page(DeploymentFilter(), limit, offset))
    return [d["name"] for d in found["resources"]], found["offset"]


def walk(service: Deployments, limit: int = PAGE) -> list[str]:
    names: list[str] = []
    offset = 0
    while True:
        found, offset = page(service, offset, limit)
        names += found
        if len(found) < limit:
            return names


def seeded(tmp_path: Path, count: int) -> tuple[Store, Deployments, FakeClock]:
    clock = FakeClock()
    settings = settings_for(tmp_path / "cp.db", clock)
    store = Store(settings)
    service = Deployments(store, settings, TENANT_A)
    for n in range(count):
        create(service, f"d-{n:02d}")
        clock.advance(0.01)
    return store, service, clock


def traced(store: Store) -> list[str]:
    """Every statement the store's connection runs from now on."""
    statements: list[str] = []
    with store.snapshot() as tx:
        tx.conn.set_trace_callback(statements.append)
    return statements


def test_the_next_page_seeks_where_the_last_one_ended(tmp_path: Path) -> None:
    """Page after page, each one after the first seeks the key its previous page ended
    on, with OFFSET 0; a page nobody ended on walks OFFSET; the pages are the same."""
    store, service, _ = seeded(tmp_path, 10)
    names = [f"d-{n:02d}" for n in range(10)]
    statements = traced(store)
    assert walk(service) == names
    pages = [s for s in statements if "page_rowid" in s]
    assert len(pages) == 4
    assert "(created_at, id) >" not in pages[0]
    assert all("(created_at, id) >" in s and "OFFSET 0" in s for s in pages[1:]), pages
    statements.clear()
    assert page(service, 4) == (names[4:7], 7)  # no page ended at 4: OFFSET 4
    assert page(service, 7, 2) == (names[7:9], 9)  # ended at 7 (limit 3 or 2 alike)
    assert ["(created_at, id) >" in s for s in statements if "page_rowid" in s] == [False, True]
    store.close()


def test_offsets_keep_their_meaning_when_rows_come_and_go(tmp_path: Path) -> None:
    """A create that sorts after every page read keeps the keys; one that sorts before
    (a clock set back), a purge, or another store's commit changes what an offset
    points at, and the next page answers exactly as a fresh OFFSET walk would."""
    store, service, clock = seeded(tmp_path, 9)
    assert page(service, 0) == (["d-00", "d-01", "d-02"], 3)
    create(service, "late")  # sorts last: offsets before it are unchanged
    assert page(service, 3) == (["d-03", "d-04", "d-05"], 6)
    clock.now -= 100.0  # a create that sorts first shifts every offset by one
    create(service, "early")
    clock.now += 200.0
    assert page(service, 6) == (["d-05", "d-06", "d-07"], 9)
    doomed = json.loads(service.list_page(DeploymentFilter(), 1, 1))["resources"][0]
    assert doomed["name"] == "d-00"
    service.delete([doomed["id"]])
    assert page(service, 9) == (["d-08", "late"], 11)  # remembered before the deletion
    clock.advance(5.0)  # the deletion comes due: purged before the next read
    assert page(service, 9) == (["late"], 10)
    other = Store(store.settings)  # another connection (another process) on the file
    assert page(service, 3) == (["d-03", "d-04", "d-05"], 6)
    clock.now -= 1_000.0
    create(Deployments(other, store.settings, TENANT_A), "first")
    assert page(service, 6) == (["d-05", "d-06", "d-07"], 9)
    assert walk(service) == ["first", "early", *(f"d-{n:02d}" for n in range(1, 9)), "late"]
    other.close()
    store.close()


def test_workspaces_keep_their_own_page_starts(tmp_path: Path) -> None:
    """A key remembered for one workspace never starts another's page."""
    store, service, _ = seeded(tmp_path, 4)
    b = Deployments(store, store.settings, TENANT_B)
    create(b, "b-only")
    assert page(service, 0) == (["d-00", "d-01", "d-02"], 3)
    assert page(b, 3) == ([], 3)
    assert page(service, 3) == (["d-03"], 4)
    store.close()


def test_page_starts_are_bounded() -> None:
    """Past its limit it forgets everything before remembering more; a key added before
    the greatest one remembered forgets all, one after it none."""
    starts = PageStarts()
    starts.LIMIT = 2
    starts.remember(TENANT_A, 3, (1.0, "a"))
    starts.remember(TENANT_A, 6, (2.0, "b"))
    starts.added((3.0, "c"))
    assert starts.before(TENANT_A, 3) == (1.0, "a")
    starts.remember(TENANT_A, 9, (3.0, "c"))
    assert starts.before(TENANT_A, 3) is None and starts.before(TENANT_A, 9) == (3.0, "c")
    starts.added((3.0, "b"))
    assert starts.before(TENANT_A, 9) is None


def test_a_page_after_a_key_seeks_it_in_the_workspace_index(tmp_path: Path) -> None:
    """The page query after a key seeks the key in the covering workspace index."""
    store = Store(settings_for(tmp_path / "cp.db", FakeClock()))
    sql, params = page_sql(DeploymentFilter(), after=True)
    params.update(tenant_id=TENANT_A, now=0.0, limit=100, offset=0)
    params.update(after_created_at=1.0, after_id="x")
    with store.snapshot() as tx:
        plan = query_plan(tx, sql, params)
    store.close()
    index = "USING COVERING INDEX deployments_by_tenant (tenant_id=? AND (created_at,id)>(?,?))"
    assert f"SEARCH deployments {index}" in plan, plan
