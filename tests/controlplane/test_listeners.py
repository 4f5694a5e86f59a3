"""`/v2/listeners`: listeners with `compute_type` and `version`, listed and read in both
modes, created, patched and deleted on a self-hosted server (the service allows listener
writes only to self-hosted installs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api.rules import Mode
from planner.api.vocabulary import Dialect
from tests.controlplane.core_fixtures import control_plane

pytestmark = pytest.mark.anyio

SEEDED = "5e1a7c00-0000-4000-8000-00000000c001"
UNKNOWN = "00000000-0000-4000-8000-0000000000ff"
NEW = {"compute_type": "k8s", "compute_id": "edge-cluster", "compute_config": {}}


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_a_listener_has_a_compute_type_and_a_version(
    tmp_path: Path, dialect: Dialect
) -> None:
    """The seeded listener reads with `compute_type` `k8s` and a null `version`."""
    async with control_plane(tmp_path, dialect=dialect) as cp:
        listed = (await cp.client.get("/v2/listeners")).json()["resources"]
        one = (await cp.client.get(f"/v2/listeners/{SEEDED}")).json()
    assert listed == [one]
    assert (one["compute_type"], one["version"], one["compute_id"]) == (
        "k8s",
        None,
        "sandbox-cluster",
    )


async def test_a_self_hosted_server_creates_patches_and_deletes_listeners(
    tmp_path: Path,
) -> None:
    """POST 201 (null namespaces read as none), PATCH changes `version` and replaces
    `compute_config` (nulls leave fields alone), DELETE 204, then it is gone (404)."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        cp.clock.advance(1)
        created = await cp.client.post(
            "/v2/listeners", json={**NEW, "compute_config": {"k8s_namespaces": None}}
        )
        assert created.status_code == 201, created.text
        listener = created.json()
        assert listener["compute_config"] == {"k8s_namespaces": []}
        path = f"/v2/listeners/{listener['id']}"
        cp.clock.advance(1)
        patched = await cp.client.patch(
            path, json={"version": "0.3.1", "compute_config": {"k8s_namespaces": ["a", "b"]}}
        )
        assert patched.status_code == 200
        kept = await cp.client.patch(path, json={"version": None, "compute_config": None})
        listed = (await cp.client.get("/v2/listeners")).json()["resources"]
        deleted = await cp.client.delete(path)
        gone = await cp.client.get(path)
        again = await cp.client.delete(path)
    assert patched.json()["version"] == "0.3.1"
    assert patched.json()["updated_at"] > listener["updated_at"]
    assert kept.json()["compute_config"] == {"k8s_namespaces": ["a", "b"]}
    assert [item["id"] for item in listed] == [SEEDED, listener["id"]]
    assert (deleted.status_code, gone.status_code, again.status_code) == (204, 404, 404)


async def test_a_compute_has_one_listener_per_workspace(tmp_path: Path) -> None:
    """A second listener of one `compute_id` is 409; once the first is deleted it is not."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        taken = await cp.client.post("/v2/listeners", json={**NEW, "compute_id": "sandbox-cluster"})
        await cp.client.delete(f"/v2/listeners/{SEEDED}")
        free = await cp.client.post("/v2/listeners", json={**NEW, "compute_id": "sandbox-cluster"})
    assert taken.status_code == 409
    assert "sandbox-cluster" in taken.json()["detail"]
    assert free.status_code == 201


async def test_a_cloud_server_refuses_listener_writes(tmp_path: Path) -> None:
    """In cloud mode a listener is created, patched or deleted by no one: 403 `{detail}`,
    and the seeded one is unchanged."""
    async with control_plane(tmp_path) as cp:
        answers = [
            await cp.client.post("/v2/listeners", json=NEW),
            await cp.client.patch(f"/v2/listeners/{SEEDED}", json={"version": "1"}),
            await cp.client.delete(f"/v2/listeners/{SEEDED}"),
        ]
        after = (await cp.client.get(f"/v2/listeners/{SEEDED}")).json()
    assert [a.status_code for a in answers] == [403, 403, 403]
    assert "self-hosted" in answers[0].json()["detail"]
    assert after["version"] is None


@pytest.mark.parametrize(
    "body",
    [
        {**NEW, "compute_type": "ecs"},
        {"compute_type": "k8s", "compute_config": {}},
        {"compute_type": "k8s", "compute_id": "x"},
        {**NEW, "compute_config": {"k8s_namespaces": "agents"}},
    ],
)
async def test_a_listener_create_is_validated(tmp_path: Path, body: dict[str, object]) -> None:
    """`compute_type` is `k8s`; `compute_id` and `compute_config` are required; the
    namespaces are a list: anything else is 422."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        response = await cp.client.post("/v2/listeners", json=body)
    assert response.status_code == 422


async def test_unknown_listeners_are_404(tmp_path: Path) -> None:
    """Reading, patching or deleting a listener the workspace does not have is 404."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        path = f"/v2/listeners/{UNKNOWN}"
        codes = [
            (await cp.client.get(path)).status_code,
            (await cp.client.patch(path, json={"version": "1"})).status_code,
            (await cp.client.delete(path)).status_code,
        ]
    assert codes == [404, 404, 404]


async def test_a_deleted_seeded_listener_stays_deleted(tmp_path: Path) -> None:
    """The seed data is written once per workspace: a server started again over the same
    file does not bring back a listener deleted before, nor duplicate one it kept."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        await cp.client.post("/v2/listeners", json=NEW)
        await cp.client.delete(f"/v2/listeners/{SEEDED}")
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as again:
        listed = (await again.client.get("/v2/listeners")).json()["resources"]
    assert [item["compute_id"] for item in listed] == ["edge-cluster"]
