"""Concurrent requests keep the store consistent: no lost revision, unique names, exact counts."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest

from planner.api.models import DeploymentCreate, DeploymentPatch
from planner.controlplane.service import Conflict, Deployments
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings
from planner.controlplane.store import DeploymentFilter, Store
from tests.controlplane.core_fixtures import FakeClock, Plane, control_plane, git_host_body


async def gather(calls: list[Any]) -> list[Any]:
    """Run coroutine factories concurrently; results in call order."""
    results: list[Any] = [None] * len(calls)

    async def run(index: int) -> None:
        results[index] = await calls[index]()

    async with anyio.create_task_group() as group:
        for index in range(len(calls)):
            group.start_soon(run, index)
    return results


async def post(cp: Plane, name: str) -> int:
    response = await cp.client.post("/v2/deployments", json=git_host_body(name))
    return response.status_code


async def patch_ref(cp: Plane, deployment_id: str, ref: str) -> int:
    body = {"source_revision_config": {"repo_ref": ref}}
    response = await cp.client.patch(f"/v2/deployments/{deployment_id}", json=body)
    return response.status_code


@pytest.mark.anyio
async def test_parallel_creates_keep_names_unique(tmp_path: Path) -> None:
    """50 parallel creates plus 10 racing duplicates: one 201 per name, the rest 409."""
    async with control_plane(tmp_path) as cp:
        calls = [partial(post, cp, f"agent-{n}") for n in range(50)]
        calls += [partial(post, cp, "contested") for _ in range(10)]
        statuses = await gather(calls)
        assert statuses[:50] == [201] * 50
        assert sorted(statuses[50:]) == [201] + [409] * 9
        listed = (await cp.client.get("/v2/deployments", params={"limit": 100})).json()
        names = [d["name"] for d in listed["resources"]]
        assert len(names) == 51 and len(set(names)) == 51
        projects = (await cp.client.get("/local/tracing-projects")).json()
        assert sorted(p["name"] for p in projects) == sorted(names)


@pytest.mark.anyio
async def test_parallel_patches_lose_no_revision(tmp_path: Path) -> None:
    """50 parallel revision PATCHes on one deployment make exactly 50 new revisions."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        refs = [f"ref-{n}" for n in range(50)]
        statuses = await gather([lambda r=r: patch_ref(cp, created["id"], r) for r in refs])
        assert statuses == [200] * 50
        revisions = await cp.revisions(created["id"])
        assert len(revisions) == 51
        assert sorted(r["source_revision_config"]["repo_ref"] for r in revisions[:-1]) == sorted(
            refs
        )
        deployment = await cp.get(created["id"])
        assert deployment["latest_revision_id"] == revisions[0]["id"]
        newest_ref = revisions[0]["source_revision_config"]["repo_ref"]
        assert deployment["source_revision_config"]["repo_ref"] == newest_ref
        assert [r["status"] for r in revisions] == ["QUEUED"] + ["SKIPPED"] * 50


@pytest.mark.anyio
async def test_parallel_patches_across_deployments(tmp_path: Path) -> None:
    """Interleaved PATCHes on 10 deployments: each gets exactly its own revisions."""
    async with control_plane(tmp_path) as cp:
        ids = [(await cp.create(git_host_body(f"d-{n}")))["id"] for n in range(10)]
        calls = [lambda i=i, k=k: patch_ref(cp, i, f"r{k}") for k in range(5) for i in ids]
        assert await gather(calls) == [200] * 50
        for deployment_id in ids:
            revisions = await cp.revisions(deployment_id)
            refs = {r["source_revision_config"]["repo_ref"] for r in revisions}
            assert len(revisions) == 6 and refs == {"main", "r0", "r1", "r2", "r3", "r4"}


def test_stores_in_several_threads_on_one_file(tmp_path: Path) -> None:
    """Four stores on one file (as four processes would) creating at once lose nothing."""
    settings = ServerSettings(db_path=tmp_path / "cp.db", clock=FakeClock())
    stores = [Store(settings) for _ in range(4)]

    def work(n: int) -> str:
        service = Deployments(stores[n % 4], settings, DEFAULT_TENANT_ID)
        try:
            created = json.loads(
                service.create(DeploymentCreate.model_validate(git_host_body(f"t-{n % 25}")))
            )
        except Conflict:
            return "conflict"
        service.patch(
            str(created["id"]),
            DeploymentPatch.model_validate({"source_config": {"build_command": "b"}}),
        )
        return "created"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(work, range(50)))
    assert outcomes.count("created") == 25 and outcomes.count("conflict") == 25
    with stores[0].transaction() as tx:
        assert tx.count_deployments(DEFAULT_TENANT_ID) == 25
        revisions = tx.revisions_of(
            [d.id for d, _ in tx.list_deployments(DEFAULT_TENANT_ID, DeploymentFilter(), 0, 100, 0)]
        )
        assert sorted(len(r) for r in revisions.values()) == [2] * 25
    for store in stores:
        store.close()
