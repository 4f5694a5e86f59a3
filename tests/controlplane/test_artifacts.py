"""Listeners, push tokens, source uploads and build logs: what langgraph-cli's deploy
flows call besides the deployment routes."""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from planner.api.rules import Mode
from planner.controlplane.app import create_app
from planner.controlplane.artifacts import MAX_UPLOAD_BYTES, is_tar_archive
from planner.controlplane.settings import ServerSettings

from .conftest import TENANT_A, TENANT_B
from .core_fixtures import Plane, control_plane, git_host_body

pytestmark = pytest.mark.anyio
MISSING = "00000000-0000-4000-8000-0000000000ff"
DEFAULT_LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"


def tarball(files: dict[str, bytes] | None = None) -> bytes:
    """A gzipped tar archive holding FILES."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (files or {"agent.json": b"{}"}).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def source_body(name: str) -> dict[str, Any]:
    return {"name": name, "source": "internal_source", "source_revision_config": {}}


async def upload(cp: Plane, deployment_id: str) -> dict[str, Any]:
    response = await cp.client.post(
        f"/v2/deployments/{deployment_id}/upload-url", json={"supports_upload_headers": True}
    )
    assert response.status_code == 200, response.text
    return dict(response.json())


async def put(cp: Plane, url: str, content: bytes) -> Any:
    """PUT to an upload URL as a client would: no API key, only the URL."""
    parts = urlsplit(url)
    return await cp.client.put(
        f"{parts.path}?{parts.query}",
        content=content,
        headers={"X-Api-Key": "", "Content-Type": "application/gzip"},
    )


async def test_listeners_are_paged_and_one_is_read_by_id(tmp_path: Path) -> None:
    """GET /v2/listeners pages the seeded listeners; GET one by id; 404 for another id."""
    async with control_plane(tmp_path) as cp:
        page = (await cp.client.get("/v2/listeners")).json()
        assert [item["id"] for item in page["resources"]] == [DEFAULT_LISTENER]
        assert page["resources"][0]["compute_config"] == {"k8s_namespaces": ["agents"]}
        assert page["offset"] == 1
        empty = (await cp.client.get("/v2/listeners", params={"offset": 1})).json()
        assert empty == {"resources": [], "offset": 1}
        one = await cp.client.get(f"/v2/listeners/{DEFAULT_LISTENER}")
        assert one.json()["compute_id"] == "sandbox-cluster"
        assert (await cp.client.get(f"/v2/listeners/{MISSING}")).status_code == 404


def test_seeded_listeners_can_be_scoped_to_workspaces(tmp_path: Path) -> None:
    """A listener with tenant_ids is listed only in those workspaces."""
    seed = tmp_path / "seed.toml"
    seed.write_text(
        f'[[listeners]]\nid = "{MISSING}"\ncompute_id = "c"\nk8s_namespaces = ["a", "b"]\n'
        f'tenant_ids = ["{TENANT_A}"]\n'
    )
    settings = ServerSettings(
        db_path=tmp_path / "cp.db", seed_file=seed, api_keys={"a": [TENANT_A], "b": [TENANT_B]}
    )
    with TestClient(create_app(settings)) as client:
        seen = client.get("/v2/listeners", headers={"X-Api-Key": "a"}).json()["resources"]
        unseen = client.get("/v2/listeners", headers={"X-Api-Key": "b"}).json()["resources"]
    assert [(item["id"], item["compute_config"]) for item in seen] == [
        (MISSING, {"k8s_namespaces": ["a", "b"]})
    ]
    assert unseen == []


async def test_push_token_for_an_internal_docker_deployment(tmp_path: Path) -> None:
    """An internal_docker deployment gets {token, registry, expires_at, ...}; another
    source is 409 naming the source; an unknown id is 404."""
    async with control_plane(tmp_path) as cp:
        docker = await cp.create({"name": "img", "source": "internal_docker"})
        response = await cp.client.post(
            f"/v2/deployments/{docker['id']}/push-token", json={"supports_registry_username": True}
        )
        assert response.status_code == 200, response.text
        token = response.json()
        assert token["token"] and token["registry_url"] == f"https://{token['registry']}"
        assert token["repository_url"].endswith("/img") and token["expires_at"]
        git = await cp.create(git_host_body("git"))
        refused = await cp.client.post(f"/v2/deployments/{git['id']}/push-token")
        assert refused.status_code == 409 and "internal_docker" in refused.json()["detail"]
        unknown = await cp.client.post(f"/v2/deployments/{MISSING}/push-token")
        assert unknown.status_code == 404


async def test_a_tarball_put_to_the_upload_url_is_kept_and_its_revision_builds(
    tmp_path: Path,
) -> None:
    """The upload URL takes a PUT of a tarball without a key; a revision naming its
    object_path builds, and the build log shows the stored bytes' digest."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(source_body("src"))
        slot = await upload(cp, created["id"])
        assert slot["object_path"].startswith(f"uploads/{created['id']}/")
        assert slot["upload_headers"] == {"Content-Type": "application/gzip"}
        content = tarball()
        stored = await put(cp, slot["upload_url"], content)
        assert stored.status_code == 200, stored.text
        assert stored.json()["size"] == len(content)
        patched = await cp.patch(
            created["id"],
            {
                "source_revision_config": {
                    "source_tarball_path": slot["object_path"],
                    "agent_config_path": "agent.json",
                }
            },
        )
        revision_id = patched["latest_revision_id"]
        cp.clock.advance(cp.settings.build_seconds + cp.settings.deploy_seconds)
        assert await cp.revision_status(created["id"], revision_id) == "DEPLOYED"
        logs = await cp.client.post(
            f"/v1/projects/{created['id']}/revisions/{revision_id}/build_logs", json={}
        )
        messages = [line["message"] for line in logs.json()["logs"]]
        assert f"Fetched {slot['object_path']}: {len(content)} bytes, sha256 " in "\n".join(
            messages
        )
        assert stored.json()["sha256"] in "\n".join(messages)


async def test_upload_refusals(tmp_path: Path) -> None:
    """Not a tar archive: 400; a wrong token: 403; a used URL: 403; an expired URL: 403; an
    unknown upload: 404; a deployment of another source: 409."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(source_body("src"))
        slot = await upload(cp, created["id"])
        assert (await put(cp, slot["upload_url"], b"not a tarball")).status_code == 400
        wrong = slot["upload_url"].split("?")[0] + "?token=nope"
        assert (await put(cp, wrong, tarball())).status_code == 403
        unknown = f"/local/uploads/{MISSING}?token=x"
        assert (await put(cp, unknown, tarball())).status_code == 404
        used = await upload(cp, created["id"])
        assert (await put(cp, used["upload_url"], tarball({"a": b"first"}))).status_code == 200
        again = await put(cp, used["upload_url"], tarball({"a": b"second"}))
        assert again.status_code == 403 and "used" in again.json()["detail"]
        cp.clock.advance(3601)
        expired = await put(cp, slot["upload_url"], tarball())
        assert expired.status_code == 403 and "expired" in expired.json()["detail"]
        git = await cp.create(git_host_body("git"))
        other = await cp.client.post(f"/v2/deployments/{git['id']}/upload-url")
        assert other.status_code == 409


async def test_a_second_put_to_a_used_upload_url_keeps_the_first_upload(
    tmp_path: Path,
) -> None:
    """The token works once: the refused second PUT leaves the first bytes stored."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(source_body("src"))
        slot = await upload(cp, created["id"])
        first = tarball({"a": b"first"})
        assert (await put(cp, slot["upload_url"], first)).status_code == 200
        assert (await put(cp, slot["upload_url"], tarball({"b": b"2"}))).status_code == 403
        with cp.store.snapshot() as tx:
            stored = tx.get_upload(urlsplit(slot["upload_url"]).path.rsplit("/", 1)[1])
        assert stored is not None and stored.size == len(first)


async def test_an_upload_over_1_mib_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    """A 5 MB tarball (declared or streamed) is a 413 {detail}; the URL still works after."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(source_body("src"))
        slot = await upload(cp, created["id"])
        big = tarball({"big": os.urandom(5 * 1024 * 1024)})
        refused = await put(cp, slot["upload_url"], big)
        assert refused.status_code == 413
        assert refused.json() == {"detail": "Request body too large: at most 1 MiB."}
        parts = urlsplit(slot["upload_url"])

        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(big), 65_536):
                yield big[start : start + 65_536]

        streamed = await cp.client.put(
            f"{parts.path}?{parts.query}", content=chunks(), headers={"X-Api-Key": ""}
        )
        assert streamed.status_code == 413
        assert (await put(cp, slot["upload_url"], tarball())).status_code == 200
        exact = await upload(cp, created["id"])
        at_limit = await put(cp, exact["upload_url"], b"\0" * MAX_UPLOAD_BYTES)
        assert at_limit.status_code == 200  # exactly 1 MiB passes (zeros read as an empty tar)
        assert at_limit.json()["size"] == MAX_UPLOAD_BYTES


def test_upload_urls_carry_the_api_host_prefix_when_self_hosted(tmp_path: Path) -> None:
    """`public_base_url` (the origin of upload URLs) adds /api-host in self-hosted mode only."""
    from starlette.requests import Request

    from planner.controlplane.artifact_routes import public_base_url
    from planner.controlplane.settings import ServerSettings

    scope = {
        "type": "http",
        "scheme": "http",
        "server": ("127.0.0.1", 8123),
        "path": "/v2/x",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8123")],
    }
    request = Request(scope)
    hosted = ServerSettings(db_path=tmp_path / "x.db", mode=Mode.SELF_HOSTED)
    assert public_base_url(request, hosted) == "http://127.0.0.1:8123/api-host"
    assert public_base_url(request, ServerSettings(db_path=tmp_path / "y.db")) == (
        "http://127.0.0.1:8123"
    )


async def test_build_logs_grow_with_the_build_and_page(tmp_path: Path) -> None:
    """Lines appear as the build walks; limit/offset page them, next_offset says where the
    next page starts, desc reverses; the tracing project's id works as the project id."""
    async with control_plane(tmp_path, build_seconds=1.0) as cp:
        created = await cp.create(git_host_body("a"))
        revision_id = created["latest_revision_id"]
        path = f"/v1/projects/{created['id']}/revisions/{revision_id}/build_logs"
        first = (await cp.client.post(path, json={"order": "asc", "limit": 50})).json()
        assert [line["message"] for line in first["logs"]] == [
            f"Revision {revision_id} queued (git_host)."
        ]
        cp.clock.advance(1.0)
        whole = (await cp.client.post(path, json={"limit": 50})).json()
        messages = [line["message"] for line in whole["logs"]]
        assert messages[-1] == "Build succeeded: image sandbox/a:1."
        assert any(m.startswith("Cloning https://git.example.com/acme/") for m in messages)
        page = (await cp.client.post(path, json={"limit": 2, "offset": "1"})).json()
        assert [line["message"] for line in page["logs"]] == messages[1:3]
        assert page["next_offset"] == "3"
        newest = (await cp.client.post(path, json={"order": "desc", "limit": 1})).json()
        assert newest["logs"][0]["message"] == messages[-1]
        projects = (await cp.client.get("/local/tracing-projects")).json()
        by_project = await cp.client.post(
            f"/v1/projects/{projects[0]['id']}/revisions/{revision_id}/build_logs"
        )
        assert [line["message"] for line in by_project.json()["logs"]] == messages


async def test_build_logs_of_a_failed_or_skipped_revision(tmp_path: Path) -> None:
    """A fail-build revision ends in an error line; a superseded one says it was skipped;
    an unknown revision or project is 404."""
    async with control_plane(tmp_path, build_seconds=1.0) as cp:
        created = await cp.create(
            git_host_body(
                "a", source_revision_config={"repo_ref": "fail-build", "agent_config_path": "a"}
            )
        )
        failed = created["latest_revision_id"]
        cp.clock.advance(1.0)
        path = f"/v1/projects/{created['id']}/revisions/{failed}/build_logs"
        last = (await cp.client.post(path)).json()["logs"][-1]
        assert last["level"] == "error" and "fail-build" in last["message"]
        second = await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "main"}})
        await cp.patch(created["id"], {"source_revision_config": {"repo_ref": "next"}})
        skipped = (
            f"/v1/projects/{created['id']}/revisions/{second['latest_revision_id']}/build_logs"
        )
        lines = (await cp.client.post(skipped)).json()["logs"]
        assert lines[-1]["message"] == "Superseded by a newer revision: skipped."
        gone = f"/v1/projects/{created['id']}/revisions/{MISSING}/build_logs"
        assert (await cp.client.post(gone)).status_code == 404
        nobody = f"/v1/projects/{MISSING}/revisions/{failed}/build_logs"
        assert (await cp.client.post(nobody)).status_code == 404


async def test_build_logs_of_docker_and_waiting_revisions(tmp_path: Path) -> None:
    """A docker revision logs its image pull; one still waiting for its artifact says so."""
    async with control_plane(tmp_path) as cp:
        waiting = await cp.create(source_body("src"))
        path = f"/v1/projects/{waiting['id']}/revisions/{waiting['latest_revision_id']}/build_logs"
        lines = (await cp.client.post(path)).json()["logs"]
        assert lines[-1]["message"] == "Waiting for the image or source tarball."
        docker = await cp.create(
            {
                "name": "img",
                "source": "internal_docker",
                "source_revision_config": {"image_uri": "i:1"},
            }
        )
        cp.clock.advance(cp.settings.deploy_seconds)
        path = f"/v1/projects/{docker['id']}/revisions/{docker['latest_revision_id']}/build_logs"
        messages = [line["message"] for line in (await cp.client.post(path)).json()["logs"]]
        assert messages[-1] == "Pulled image i:1."


def test_only_tar_archives_count_as_source_uploads() -> None:
    """Plain and gzipped tar archives pass; other bytes do not."""
    assert is_tar_archive(tarball())
    plain = io.BytesIO()
    with tarfile.open(fileobj=plain, mode="w") as archive:
        archive.addfile(tarfile.TarInfo("empty"), io.BytesIO(b""))
    assert is_tar_archive(plain.getvalue())
    assert not is_tar_archive(b"\x1f\x8b garbage")
    assert not is_tar_archive(b"")


async def test_a_deployment_being_deleted_gets_no_token_and_an_unknown_tarball_is_fetched(
    tmp_path: Path,
) -> None:
    """Push tokens and upload URLs are 409 once deletion started; a revision naming a path
    nothing was uploaded to logs the path it fetches, without a digest."""
    async with control_plane(tmp_path, delete_seconds=10) as cp:
        created = await cp.create(
            source_body("src")
            | {
                "source_revision_config": {
                    "source_tarball_path": "elsewhere.tgz",
                    "agent_config_path": "a",
                }
            }
        )
        cp.clock.advance(cp.settings.build_seconds)
        path = f"/v1/projects/{created['id']}/revisions/{created['latest_revision_id']}/build_logs"
        messages = [line["message"] for line in (await cp.client.post(path)).json()["logs"]]
        assert "Fetching elsewhere.tgz." in messages
        await cp.client.delete(f"/v2/deployments/{created['id']}")
        refused = await cp.client.post(f"/v2/deployments/{created['id']}/upload-url")
        assert refused.status_code == 409 and "being deleted" in refused.json()["detail"]


async def test_the_new_routes_count_in_metrics_by_template_and_take_a_bearer_key(
    tmp_path: Path,
) -> None:
    """Build logs and listeners are counted by route template (ids never in labels), and
    answer a bearer key like every other route."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body("a"))
        path = f"/v1/projects/{created['id']}/revisions/{created['latest_revision_id']}/build_logs"
        bearer = {"X-Api-Key": "", "Authorization": f"Bearer {cp.client.headers['X-Api-Key']}"}
        assert (await cp.client.post(path, headers=bearer)).status_code == 200
        assert (await cp.client.get("/v2/listeners", headers={"X-Api-Key": ""})).status_code == 401
        text = (await cp.client.get("/metrics")).text
        template = "/v1/projects/{project_id}/revisions/{revision_id}/build_logs"
        assert f'method="POST",route="{template}",status="200"' in text
        assert 'route="/v2/listeners",status="401"' in text
        assert created["id"] not in text
