"""PATCH semantics, row by row of the field-behaviour table in PRODUCT.md."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from planner.api.rules import Mode
from tests.controlplane.core_fixtures import (
    Plane,
    control_plane,
    external_docker_body,
    git_host_body,
)

pytestmark = pytest.mark.anyio

SPEC = {"cpu": 1, "memory_mb": 1024, "labels": {"team": "a"}}


def with_spec(body: dict[str, Any]) -> dict[str, Any]:
    body["source_config"]["resource_spec"] = dict(SPEC)
    return body


async def patch_status(cp: Plane, deployment_id: str, body: dict[str, Any]) -> tuple[int, Any]:
    response = await cp.client.patch(f"/v2/deployments/{deployment_id}", json=body)
    return response.status_code, response.json()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "other"}, "name"),
        ({"source": "internal_docker"}, "source"),
        ({"source_config": {"integration_id": str(uuid.uuid4())}}, "source_config.integration_id"),
        ({"source_config": {"repo_url": "https://elsewhere"}}, "source_config.repo_url"),
        ({"source_config": {"deployment_type": "dev"}}, "source_config.deployment_type"),
    ],
)
async def test_immutable_change_is_400_naming_the_field(
    tmp_path: Path, body: dict[str, Any], field: str
) -> None:
    """A different value for an unmodifiable field (read-only in the document's PATCH body)
    is 400 {detail} naming it, as the real service answers; nothing changes."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        status, answer = await patch_status(cp, created["id"], body)
        assert status == 400
        assert answer["detail"].startswith(f"{field}: ")
        assert await cp.get(created["id"]) == created


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"source_config": {"listener_id": str(uuid.uuid4())}}, "source_config.listener_id"),
        (
            {"source_config": {"listener_config": {"k8s_namespace": "other"}}},
            "source_config.listener_config",
        ),
    ],
)
async def test_immutable_listener_fields(tmp_path: Path, body: dict[str, Any], field: str) -> None:
    """listener_id and listener_config of an external_docker deployment cannot change."""
    create = external_docker_body()
    create["source_config"]["listener_id"] = str(uuid.uuid4())
    create["source_config"]["listener_config"] = {"k8s_namespace": "agents"}
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        created = await cp.create(create)
        status, answer = await patch_status(cp, created["id"], body)
        assert status == 400 and answer["detail"].startswith(f"{field}: ")


async def test_repeating_immutable_values_is_a_no_op(tmp_path: Path) -> None:
    """Sending the stored name, source, repo and type again is accepted and changes nothing."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        cp.clock.advance(1)
        same = {
            "name": created["name"],
            "source": "git_host",
            "source_config": {
                k: created["source_config"][k]
                for k in ("integration_id", "repo_url", "deployment_type")
            },
        }
        patched = await cp.patch(created["id"], same)
        assert patched["updated_at"] == created["updated_at"]
        assert len(await cp.revisions(created["id"])) == 1


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"source_config": {"build_on_push": True}}, ("source_config", "build_on_push")),
    ],
)
async def test_in_place_change_creates_no_revision(
    tmp_path: Path, body: dict[str, Any], path: tuple[str, str]
) -> None:
    """build_on_push changes in place: stored, updated_at moves, no new revision."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        cp.clock.advance(1)
        patched = await cp.patch(created["id"], body)
        assert patched[path[0]][path[1]] is True
        assert patched["updated_at"] > created["updated_at"]
        assert patched["latest_revision_id"] == created["latest_revision_id"]
        assert len(await cp.revisions(created["id"])) == 1


async def test_custom_url_changes_in_place(tmp_path: Path) -> None:
    """custom_url (external_docker) changes with no new revision."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        created = await cp.create(external_docker_body())
        patched = await cp.patch(created["id"], {"source_config": {"custom_url": "https://new"}})
        assert patched["source_config"]["custom_url"] == "https://new"
        assert patched["latest_revision_id"] == created["latest_revision_id"]


@pytest.mark.parametrize(
    ("body", "check"),
    [
        (
            {"source_config": {"resource_spec": {**SPEC, "cpu": 2}}},
            ("source_config", "resource_spec"),
        ),
        (
            {"source_config": {"install_command": "pip install ."}},
            ("source_config", "install_command"),
        ),
        ({"source_config": {"build_command": "make"}}, ("source_config", "build_command")),
        ({"source_revision_config": {"repo_ref": "dev"}}, ("source_revision_config", "repo_ref")),
        (
            {"source_revision_config": {"agent_config_path": "b.json"}},
            ("source_revision_config", "agent_config_path"),
        ),
        ({"secrets": [{"name": "LOG_LEVEL", "value": "debug"}]}, ("secrets", None)),
    ],
)
async def test_new_revision_field_creates_one_revision(
    tmp_path: Path, body: dict[str, Any], check: tuple[str, str | None]
) -> None:
    """Each new-revision field of a git_host deployment makes exactly one new revision."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        patched = await cp.patch(created["id"], body)
        top, key = check
        sent = body[top] if key is None else body[top][key]
        assert (patched[top] if key is None else patched[top][key]) == sent
        revisions = await cp.revisions(created["id"])
        assert len(revisions) == 2
        assert patched["latest_revision_id"] == revisions[0]["id"] != created["latest_revision_id"]


async def test_image_uri_and_tarball_are_revision_fields(tmp_path: Path) -> None:
    """image_uri (docker) and source_tarball_path (internal_source) make new revisions."""
    async with control_plane(tmp_path) as cp:
        docker = await cp.create({"name": "d", "source": "internal_docker"})
        await cp.patch(docker["id"], {"source_revision_config": {"image_uri": "img:2"}})
        source = await cp.create({"name": "s", "source": "internal_source"})
        await cp.patch(source["id"], {"source_revision_config": {"source_tarball_path": "t.tgz"}})
        assert len(await cp.revisions(docker["id"])) == 2
        assert len(await cp.revisions(source["id"])) == 2


async def test_resource_spec_is_replaced_wholesale(tmp_path: Path) -> None:
    """A non-null resource_spec replaces the stored one: unsent sub-fields are gone."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        patched = await cp.patch(
            created["id"], {"source_config": {"resource_spec": {"min_scale": 2}}}
        )
        assert patched["source_config"]["resource_spec"] == {"min_scale": 2}
        assert patched["source_config"]["repo_url"] == created["source_config"]["repo_url"]


async def test_empty_resource_spec_clears_it(tmp_path: Path) -> None:
    """`resource_spec: {}` is non-null, so it replaces the stored spec with an empty one."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        patched = await cp.patch(created["id"], {"source_config": {"resource_spec": {}}})
        assert "resource_spec" not in patched["source_config"]
        assert len(await cp.revisions(created["id"])) == 2


async def test_all_null_listener_config_is_ignored(tmp_path: Path) -> None:
    """A listener_config of nulls is nulls: no change and no immutable-field error."""
    create = external_docker_body()
    create["source_config"]["listener_config"] = {"k8s_namespace": "agents"}
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        created = await cp.create(create)
        body = {"source_config": {"listener_config": {"k8s_namespace": None}}}
        patched = await cp.patch(created["id"], body)
        assert patched["source_config"]["listener_config"] == {"k8s_namespace": "agents"}


async def test_nulls_are_ignored(tmp_path: Path) -> None:
    """Nulls never clear a stored value, and a PATCH of only nulls changes nothing."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        cp.clock.advance(1)
        nulls = {
            "source": None,
            "source_config": {"repo_url": None, "build_on_push": None, "resource_spec": None},
            "source_revision_config": {"repo_ref": None, "agent_config_path": None},
            "secrets": None,
            "secret_references": None,
        }
        assert await cp.patch(created["id"], nulls) == await cp.get(created["id"])
        assert (await cp.get(created["id"]))["updated_at"] == created["updated_at"]
        assert len(await cp.revisions(created["id"])) == 1


@pytest.mark.parametrize(
    "body", [{"secrets": []}, {}, {"secrets": [{"name": "LOG_LEVEL", "value": "info"}]}]
)
async def test_secrets_empty_omitted_or_same_are_unchanged(
    tmp_path: Path, body: dict[str, Any]
) -> None:
    """`secrets: []`, no secrets, or the same secrets keep them, with no revision."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        patched = await cp.patch(created["id"], body)
        assert patched["secrets"] == created["secrets"]
        assert patched["updated_at"] == created["updated_at"]
        assert len(await cp.revisions(created["id"])) == 1


async def test_non_empty_secrets_replace_the_list(tmp_path: Path) -> None:
    """A non-empty secrets list replaces the stored list as a whole."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        new = [{"name": "TOKEN", "value": "t"}]
        patched = await cp.patch(created["id"], {"secrets": new})
        assert patched["secrets"] == new
        assert (await cp.get(created["id"]))["secrets"] == new


async def test_empty_secret_references_clear_them(tmp_path: Path) -> None:
    """`secret_references: []` clears them (a new revision); omitting keeps them."""
    refs = [{"name": "TOKEN", "secret_name": "agent", "secret_key": "token"}]
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        created = await cp.create(external_docker_body(secret_references=refs))
        kept = await cp.patch(created["id"], {"source_config": {"custom_url": "https://b"}})
        assert kept["secret_references"] == refs
        cleared = await cp.patch(created["id"], {"secret_references": []})
        assert cleared["secret_references"] == []
        assert len(await cp.revisions(created["id"])) == 2


async def test_one_patch_with_many_changes_makes_one_revision(tmp_path: Path) -> None:
    """repo_ref + resource_spec + secrets + build_on_push in one PATCH = one revision."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        cp.clock.advance(1)
        body = {
            "source_config": {"build_on_push": True, "resource_spec": {"cpu": 4}},
            "source_revision_config": {"repo_ref": "release"},
            "secrets": [{"name": "A", "value": "1"}],
        }
        patched = await cp.patch(created["id"], body)
        revisions = await cp.revisions(created["id"])
        assert len(revisions) == 2
        assert revisions[0]["source_revision_config"]["repo_ref"] == "release"
        assert patched["source_config"]["build_on_push"] is True
        assert patched["updated_at"] > created["updated_at"]


async def test_field_of_another_source_is_409_naming_it(tmp_path: Path) -> None:
    """image_uri on a git_host deployment is rejected with 409 naming the field."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        status, answer = await patch_status(
            cp, created["id"], {"source_revision_config": {"image_uri": "img:1"}}
        )
        assert status == 409
        assert "source_revision_config.image_uri" in answer["detail"]


async def test_rules_apply_to_the_merged_result(tmp_path: Path) -> None:
    """A tag ref while build_on_push is stored true is rejected naming build_on_push."""
    async with control_plane(tmp_path) as cp:
        body = git_host_body()
        body["source_config"]["build_on_push"] = True
        created = await cp.create(body)
        status, answer = await patch_status(
            cp, created["id"], {"source_revision_config": {"repo_ref": "refs/tags/v2"}}
        )
        assert status == 409 and "source_config.build_on_push" in answer["detail"]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"source_config": {"resource_spec": {"cpu": "lots"}}}, "resource_spec"),
        ({"secrets": [{"name": "A-B", "value": "1"}]}, "secrets"),
        ({"source": "ftp"}, "source"),
    ],
)
async def test_patch_shape_problems_are_422(tmp_path: Path, body: dict[str, Any], loc: str) -> None:
    """A malformed PATCH body is a 422 HTTPValidationError located under "body"."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        status, answer = await patch_status(cp, created["id"], body)
        assert status == 422
        assert any(e["loc"][0] == "body" and loc in e["loc"] for e in answer["detail"])


async def test_patch_with_a_non_finite_number_is_422_and_changes_nothing(tmp_path: Path) -> None:
    """`NaN` in a PATCH (JSON has none) is 422 at its loc; the deployment still reads back."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        response = await cp.client.patch(
            f"/v2/deployments/{created['id']}",
            content=b'{"source_config": {"resource_spec": {"cpu": NaN}}}',
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"] == [
            "body",
            "source_config",
            "resource_spec",
            "cpu",
        ]
        assert (await cp.get(created["id"]))["source_config"] == created["source_config"]


async def test_patch_unknown_or_deleting_deployment(tmp_path: Path) -> None:
    """Unknown id: 404 with the spec's text; a deployment being deleted: 409."""
    missing = str(uuid.uuid4())
    async with control_plane(tmp_path, delete_seconds=10) as cp:
        status, answer = await patch_status(cp, missing, {})
        assert (status, answer) == (404, {"detail": f"Deployment ID {missing} not found."})
        created = await cp.create(git_host_body())
        await cp.client.delete("/v2/deployments", params={"deployment_ids": created["id"]})
        status, answer = await patch_status(
            cp, created["id"], {"secrets": [{"name": "A", "value": "b"}]}
        )
        assert status == 409 and created["id"] in answer["detail"]


async def test_read_only_fields_in_a_patch_are_ignored(tmp_path: Path) -> None:
    """repo_commit_sha, status and ids in a PATCH body change nothing."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        body = {
            "source_revision_config": {"repo_commit_sha": "0" * 40},
            "status": "READY",
            "id": str(uuid.uuid4()),
            "latest_revision_id": str(uuid.uuid4()),
        }
        assert await cp.patch(created["id"], body) == created


async def test_internal_docker_created_empty_then_patched(tmp_path: Path) -> None:
    """The real CLI's flow: empty create waits; the PATCH's revision supersedes and deploys."""
    async with control_plane(tmp_path, deploy_seconds=0.4) as cp:
        created = await cp.create(
            {
                "name": "cli-agent",
                "source": "internal_docker",
                "source_config": {"deployment_type": "dev"},
                "source_revision_config": {},
                "secrets": [],
            }
        )
        first = created["latest_revision_id"]
        cp.clock.advance(30)
        assert await cp.revision_status(created["id"], first) == "QUEUED"
        patched = await cp.patch(
            created["id"],
            {
                "source_revision_config": {"image_uri": "registry.local/agent:7"},
                "revision_source": "cli",
                "source": "internal_docker",
            },
        )
        second = patched["latest_revision_id"]
        assert second != first
        assert await cp.revision_status(created["id"], first) == "SKIPPED"
        cp.clock.advance(0.4)
        assert await cp.revision_status(created["id"], second) == "DEPLOYED"
        assert (await cp.get(created["id"]))["active_revision_id"] == second


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"max_scale": -1}, "max_scale"),
        ({"cpu": 0}, "cpu"),
        ({"memory_mb": 2**64}, "memory_mb"),
    ],
)
async def test_patch_refuses_numbers_the_planner_refuses(
    tmp_path: Path, spec: dict[str, Any], field: str
) -> None:
    """A PATCH resource_spec breaking a numeric rule is a 422 naming the field; nothing changes."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(with_spec(git_host_body()))
        status, body = await patch_status(
            cp, created["id"], {"source_config": {"resource_spec": spec}}
        )
        assert status == 422
        locs = [item["loc"] for item in body["detail"]]
        assert ["body", "source_config", "resource_spec", field] in locs
        assert (await cp.get(created["id"]))["source_config"]["resource_spec"] == SPEC
