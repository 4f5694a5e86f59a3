"""Create, retrieve and bulk-delete deployments through the real local control plane."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from planner.api.models import BulkDeleteResult, Deployment
from planner.api.rules import RESOURCE_MAXIMUM, Mode
from planner.api.support_models import HTTPValidationError
from planner.api.values import MAX_STRING_LENGTH
from planner.config.deployment import Defaults, load_deployment
from tests.controlplane.core_fixtures import (
    INTEGRATION_ID,
    control_plane,
    external_docker_body,
    git_host_body,
)

pytestmark = pytest.mark.anyio


def locs(body: dict[str, object]) -> set[tuple[object, ...]]:
    """The `loc` of every entry of a 422 body (which must have the spec's shape)."""
    parsed = HTTPValidationError.model_validate(body)
    return {tuple(item.loc) for item in parsed.detail}


async def test_create_returns_201_with_the_deployment(tmp_path: Path) -> None:
    """POST answers 201 with a full Deployment: ids, default deployment_type, secrets."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=git_host_body())
        assert response.status_code == 201
        created = Deployment.model_validate(response.json())
        assert created.name == "support-agent" and created.source == "git_host"
        assert created.source_config.deployment_type == "prod"
        assert created.status == "AWAITING_DATABASE"
        assert created.latest_revision_id and created.active_revision_id is None
        assert [s.value for s in created.secrets] == ["info"]
        assert created.source_revision_config.repo_commit_sha


async def test_create_ignores_unknown_keys(tmp_path: Path) -> None:
    """Extra keys anywhere in the body are ignored, not rejected."""
    body = git_host_body(revision_source="cli", extra={"x": 1})
    body["source_config"]["unknown"] = True
    async with control_plane(tmp_path) as cp:
        created = await cp.create(body)
        assert "unknown" not in created["source_config"] and "revision_source" not in created


async def test_external_docker_stores_no_deployment_type(tmp_path: Path) -> None:
    """external_docker stores no deployment_type (reads echo the service's default only)
    and keeps secret_references."""
    refs = [{"name": "TOKEN", "secret_name": "agent", "secret_key": "token"}]
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        created = await cp.create(external_docker_body(secret_references=refs))
        assert created["source_config"]["deployment_type"] == "prod"
        assert created["secret_references"] == refs
        with cp.store.transaction() as tx:
            row = tx.get_deployment(created["tenant_id"], created["id"])
        assert row is not None and "deployment_type" not in row.source_config


async def test_create_reports_every_problem_at_once(tmp_path: Path) -> None:
    """A body breaking several rules gets one 422 entry per problem, loc from "body"."""
    body = external_docker_body(name="Bad_Name")
    body["source_config"]["repo_url"] = "https://x"
    body["source_revision_config"] = {"agent_config_path": "a.json"}
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422
        assert locs(response.json()) == {
            ("body", "name"),
            ("body", "source"),
            ("body", "source_config", "repo_url"),
            ("body", "source_revision_config", "agent_config_path"),
            ("body", "source_revision_config", "image_uri"),
        }


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"source": "git_host"}, ("body", "name")),
        ({"name": "a", "source": "ftp"}, ("body", "source")),
        (
            git_host_body(source_config={"integration_id": "nope"}),
            ("body", "source_config", "integration_id"),
        ),
        (
            git_host_body(source_config={"repo_url": "u"}),
            ("body", "source_config", "integration_id"),
        ),
        (git_host_body(name="x" * 64), ("body", "name")),
        (git_host_body(name="has space"), ("body", "name")),
        (git_host_body(secrets=[{"name": "A-1", "value": "1"}]), ("body", "secrets", 0, "name")),
    ],
)
async def test_create_validation_errors(
    tmp_path: Path, body: dict[str, object], loc: tuple[object, ...]
) -> None:
    """Shape and rule problems are 422 HTTPValidationError entries at the right loc."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422
        assert loc in locs(response.json())


async def test_shape_problems_do_not_hide_rule_problems(tmp_path: Path) -> None:
    """A create with a mistyped field still lists the bad name and the missing fields in
    the same 422, one entry each, the shape problem named once."""
    body = {"name": "Bad Name", "source": "git_host", "source_config": {"integration_id": "x"}}
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
    assert response.status_code == 422
    HTTPValidationError.model_validate(response.json())
    found = [tuple(item["loc"]) for item in response.json()["detail"]]
    assert sorted(found) == sorted(
        [
            ("body", "source_config", "integration_id"),
            ("body", "name"),
            ("body", "source_config", "repo_url"),
            ("body", "source_revision_config", "repo_ref"),
            ("body", "source_revision_config", "agent_config_path"),
        ]
    )


async def test_non_finite_numbers_are_422_and_nothing_is_stored(tmp_path: Path) -> None:
    """`1e400` or `NaN` (JSON has neither) in a create is 422 at its loc; the list still answers."""
    body = git_host_body()
    body["source_config"]["resource_spec"] = {"cpu": 1.2345, "labels": {"x": 6.789}}
    raw = json.dumps(body).replace("1.2345", "1e400").replace("6.789", "NaN")
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post(
            "/v2/deployments", content=raw, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422
        assert locs(response.json()) == {
            ("body", "source_config", "resource_spec", "cpu"),
            ("body", "source_config", "resource_spec", "labels", "x"),
        }
        listed = await cp.client.get("/v2/deployments")
        assert listed.status_code == 200 and listed.json()["resources"] == []


async def test_resource_numbers_past_the_api_range_are_422(tmp_path: Path) -> None:
    """`cpu = 1e308` and a memory_mb past RESOURCE_MAXIMUM are 422 (the planner's own
    rule, `check_resource_spec`); nothing is stored."""
    body = git_host_body()
    body["source_config"]["resource_spec"] = {"cpu": 1e308, "memory_mb": RESOURCE_MAXIMUM + 1}
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422
        assert locs(response.json()) == {
            ("body", "source_config", "resource_spec", "cpu"),
            ("body", "source_config", "resource_spec", "memory_mb"),
        }
        listed = await cp.client.get("/v2/deployments")
        assert listed.json()["resources"] == []


async def test_lone_surrogates_are_422_and_nothing_is_stored(tmp_path: Path) -> None:
    """A lone surrogate escape in a value or a key is 422; the list still answers afterwards."""
    body = git_host_body()
    body["secrets"] = [{"name": "A", "value": "SURROGATE"}]
    body["source_config"]["resource_spec"] = {"labels": {"SURROGATE": "x"}}
    raw = json.dumps(body).replace("SURROGATE", "\\ud800")
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post(
            "/v2/deployments", content=raw, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422
        assert locs(response.json()) == {
            ("body", "secrets", 0, "value"),
            ("body", "source_config", "resource_spec", "labels"),
        }
        listed = await cp.client.get("/v2/deployments")
        assert listed.status_code == 200 and listed.json()["resources"] == []


async def test_tag_ref_with_build_on_push_is_rejected(tmp_path: Path) -> None:
    """A git_host deployment on a tag must not build on push."""
    body = git_host_body()
    body["source_config"]["build_on_push"] = True
    body["source_revision_config"]["repo_ref"] = "refs/tags/v1"
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422
        assert ("body", "source_config", "build_on_push") in locs(response.json())


async def test_mode_decides_which_sources_exist(tmp_path: Path) -> None:
    """git_host is cloud-only: a self-hosted control plane rejects it on `source`."""
    async with control_plane(tmp_path, mode=Mode.SELF_HOSTED) as cp:
        response = await cp.client.post("/v2/deployments", json=git_host_body())
        assert response.status_code == 422
        assert ("body", "source") in locs(response.json())


async def test_duplicate_name_in_a_workspace_is_409(tmp_path: Path) -> None:
    """A second deployment with a taken name gets 409 {detail} and nothing is created."""
    async with control_plane(tmp_path) as cp:
        await cp.create(git_host_body())
        response = await cp.client.post("/v2/deployments", json=git_host_body())
        assert response.status_code == 409
        assert "support-agent" in response.json()["detail"]
        listed = await cp.client.get("/v2/deployments")
        assert len(listed.json()["resources"]) == 1


async def test_get_returns_the_deployment_with_secret_values(tmp_path: Path) -> None:
    """GET by id answers what create answered, secrets included."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        fetched = await cp.get(created["id"])
        assert fetched == created
        assert fetched["secrets"] == [{"name": "LOG_LEVEL", "value": "info"}]


async def test_get_unknown_id_is_404_naming_it(tmp_path: Path) -> None:
    """An id that is not there gets 404 with the spec's detail text."""
    missing = str(uuid.uuid4())
    async with control_plane(tmp_path) as cp:
        response = await cp.client.get(f"/v2/deployments/{missing}")
        assert response.status_code == 404
        assert response.json() == {"detail": f"Deployment ID {missing} not found."}


async def test_malformed_id_in_path_is_422(tmp_path: Path) -> None:
    """A path id that is not a uuid is a validation error on ("path", "deployment_id")."""
    async with control_plane(tmp_path) as cp:
        for method in ("GET", "PATCH"):
            response = await cp.client.request(method, "/v2/deployments/not-a-uuid", json={})
            assert response.status_code == 422
            assert ("path", "deployment_id") in locs(response.json())


async def test_tracing_project_follows_the_deployment(tmp_path: Path) -> None:
    """Create records a tracing project of the same name; deletion removes it."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        projects = (await cp.client.get("/local/tracing-projects")).json()
        assert [(p["name"], p["deployment_id"]) for p in projects] == [
            ("support-agent", created["id"])
        ]
        await cp.client.delete("/v2/deployments", params={"deployment_ids": created["id"]})
        cp.clock.advance(cp.settings.delete_seconds)
        assert (await cp.client.get("/local/tracing-projects")).json() == []


async def test_bulk_delete_passes_through_awaiting_delete(tmp_path: Path) -> None:
    """Deletion answers 200, shows AWAITING_DELETE, then AWAITING_FINAL_DELETE over the
    second half of delete_seconds, then the id is 404."""
    async with control_plane(tmp_path, delete_seconds=0.5) as cp:
        a = await cp.create(git_host_body("a"))
        b = await cp.create(git_host_body("b"))
        response = await cp.client.delete(
            "/v2/deployments", params={"deployment_ids": [a["id"], b["id"], a["id"]]}
        )
        assert response.status_code == 200
        assert response.json() == {"deleted": [a["id"], b["id"]], "failed": []}
        cp.clock.advance(0.24)
        assert (await cp.get(a["id"]))["status"] == "AWAITING_DELETE"
        cp.clock.advance(0.25)
        assert (await cp.get(a["id"]))["status"] == "AWAITING_FINAL_DELETE"
        cp.clock.advance(0.01)
        assert (await cp.client.get(f"/v2/deployments/{a['id']}")).status_code == 404
        assert (await cp.client.get("/v2/deployments")).json()["resources"] == []


async def test_bulk_delete_of_one_already_deleting_is_207(tmp_path: Path) -> None:
    """An id already being deleted is a failed item; the others are deleted (207)."""
    async with control_plane(tmp_path, delete_seconds=5) as cp:
        a = await cp.create(git_host_body("a"))
        b = await cp.create(git_host_body("b"))
        await cp.client.delete("/v2/deployments", params={"deployment_ids": a["id"]})
        response = await cp.client.delete(
            "/v2/deployments", params={"deployment_ids": [a["id"], b["id"]]}
        )
        assert response.status_code == 207
        body = response.json()
        BulkDeleteResult.model_validate(body)
        assert body["deleted"] == [b["id"]]
        assert [f["deployment_id"] for f in body["failed"]] == [a["id"]]
        assert a["id"] in body["failed"][0]["detail"]


async def test_bulk_delete_with_a_missing_id_is_404_and_deletes_nothing(tmp_path: Path) -> None:
    """One unknown id fails the whole request with 404 naming it; the others stay."""
    missing = str(uuid.uuid4())
    async with control_plane(tmp_path) as cp:
        a = await cp.create(git_host_body("a"))
        response = await cp.client.delete(
            "/v2/deployments", params={"deployment_ids": [a["id"], missing]}
        )
        assert response.status_code == 404
        assert missing in response.json()["detail"]
        assert (await cp.get(a["id"]))["status"] != "AWAITING_DELETE"


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"deployment_ids": "not-a-uuid"},
        {"deployment_ids": [str(uuid.uuid4()) for _ in range(101)]},
    ],
)
async def test_bulk_delete_validation(tmp_path: Path, params: dict[str, Any]) -> None:
    """No ids, a malformed id, or more than 100 ids is a 422 on ("query", "deployment_ids")."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.delete("/v2/deployments", params=params)
        assert response.status_code == 422
        assert any(loc[:2] == ("query", "deployment_ids") for loc in locs(response.json()))


async def test_bulk_delete_accepts_100_ids(tmp_path: Path) -> None:
    """Exactly 100 ids is within the limit (here: 404 for the first unknown one)."""
    ids = [str(uuid.uuid4()) for _ in range(100)]
    async with control_plane(tmp_path) as cp:
        response = await cp.client.delete("/v2/deployments", params={"deployment_ids": ids})
        assert response.status_code == 404
        assert ids[0] in response.json()["detail"]


async def test_integration_id_is_kept_normalised(tmp_path: Path) -> None:
    """The integration id comes back as the canonical uuid string sent."""
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        assert created["source_config"]["integration_id"] == INTEGRATION_ID


def _spec(**fields: Any) -> dict[str, Any]:
    return {"source_config": {"resource_spec": fields}}


# (what the body sets, the field the planner and the server both refuse)
REFUSED = [
    ({"name": "-ab"}, ("name",)),
    ({"name": "ab-"}, ("name",)),
    ({"name": "a" * 64}, ("name",)),
    (_spec(max_scale=-1), ("source_config", "resource_spec", "max_scale")),
    (_spec(cpu=0), ("source_config", "resource_spec", "cpu")),
    (_spec(max_scale=2**63), ("source_config", "resource_spec", "max_scale")),
    (_spec(max_scale=True), ("source_config", "resource_spec", "max_scale")),
    (_spec(max_scale="2"), ("source_config", "resource_spec", "max_scale")),
    (_spec(cpu="1"), ("source_config", "resource_spec", "cpu")),
    (
        _spec(volume_mounts=[{"name": "v", "mountPath": "/m", "readOnly": "true"}]),
        ("source_config", "resource_spec", "volume_mounts", 0, "readOnly"),
    ),
    (_spec(labels={"n": 2**64}), ("source_config", "resource_spec", "labels", "n")),
    (_spec(labels={"n": -(2**63) - 1}), ("source_config", "resource_spec", "labels", "n")),
    (_spec(labels={"n": 1e19}), ("source_config", "resource_spec", "labels", "n")),
    (
        _spec(labels={"big": "x" * (MAX_STRING_LENGTH + 1)}),
        ("source_config", "resource_spec", "labels", "big"),
    ),
    (
        {"source_revision_config": {"image_uri": "i" * (MAX_STRING_LENGTH + 1)}},
        ("source_revision_config", "image_uri"),
    ),
]


def _docker_body(change: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "agent",
        "source": "internal_docker",
        "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
    }
    for key, value in change.items():
        body[key] = {**body[key], **value} if isinstance(body.get(key), dict) else value
    return body


@pytest.mark.parametrize(("change", "loc"), REFUSED)
async def test_server_refuses_what_the_planner_refuses(
    tmp_path: Path, change: dict[str, Any], loc: tuple[str, ...]
) -> None:
    """A value the config validator refuses is a 422 from the server naming the same field."""
    body = _docker_body(change)
    own = {key: value for key, value in body.items() if key != "name"}
    loaded = load_deployment(body["name"], own, Defaults(), mode=Mode.CLOUD, environ={})
    assert loaded.desired is None
    assert loc in {problem.loc for problem in loaded.problems} or loc == ("name",)
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422, response.text
        assert ("body", *loc) in locs(response.json())


async def test_a_reversed_resource_pair_is_stored_as_given_and_refused_by_the_planner(
    tmp_path: Path,
) -> None:
    """The server does not compare the pairs of a resource_spec (no OpenAPI keyword can
    state the rule): it stores min_scale 5 over max_scale 1 as given, and the config
    validator refuses the same values, so the planner never sends them."""
    body = _docker_body(_spec(min_scale=5, max_scale=1))
    own = {key: value for key, value in body.items() if key != "name"}
    loaded = load_deployment(body["name"], own, Defaults(), mode=Mode.CLOUD, environ={})
    assert ("source_config", "resource_spec", "min_scale") in {p.loc for p in loaded.problems}
    async with control_plane(tmp_path) as cp:
        created = await cp.create(body)
        assert created["source_config"]["resource_spec"] == {"min_scale": 5, "max_scale": 1}
        patch = {"source_config": {"resource_spec": {"cpu": 2, "cpu_limit": 1}}}
        answer = await cp.client.patch(f"/v2/deployments/{created['id']}", json=patch)
        assert answer.status_code == 200, answer.text
        assert answer.json()["source_config"]["resource_spec"] == {"cpu": 2, "cpu_limit": 1}


async def test_a_secret_name_given_twice_keeps_its_last_value(tmp_path: Path) -> None:
    """Secrets become one environment variable per name: a name given twice in a create
    or a PATCH is stored once, with the last value given (as Kubernetes keeps the last)."""
    twice = [{"name": "A", "value": "1"}, {"name": "B", "value": "b"}, {"name": "A", "value": "2"}]
    async with control_plane(tmp_path) as cp:
        created = await cp.create(_docker_body({"secrets": twice}))
        assert created["secrets"] == [{"name": "A", "value": "2"}, {"name": "B", "value": "b"}]
        patch = {"secrets": [{"name": "C", "value": "1"}, {"name": "C", "value": "3"}]}
        answer = await cp.client.patch(f"/v2/deployments/{created['id']}", json=patch)
        assert answer.status_code == 200, answer.text
        assert answer.json()["secrets"] == [{"name": "C", "value": "3"}]


@pytest.mark.parametrize("name", ["1A", "A-B", "A B", "A\n", ""])
async def test_a_secret_name_that_is_no_environment_variable_name_is_422(
    tmp_path: Path, name: str
) -> None:
    """Secret names become environment variables: the server refuses what the config
    refuses (`must be a valid environment variable name`), on create and PATCH."""
    body = _docker_body({"secrets": [{"name": name, "value": "v"}]})
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
        assert response.status_code == 422, response.text
        assert ("body", "secrets", 0, "name") in locs(response.json())
        created = await cp.create(_docker_body({}))
        patch = {"secrets": [{"name": name, "value": "v"}]}
        answer = await cp.client.patch(f"/v2/deployments/{created['id']}", json=patch)
        assert answer.status_code == 422, answer.text


async def test_64_bit_integers_and_long_strings_at_the_limits_are_accepted(tmp_path: Path) -> None:
    """The bounds are inclusive: 2**63 - 1 and -2**63 in free-form values,
    RESOURCE_MAXIMUM for a resource number, and MAX_STRING_LENGTH characters."""
    labels = {"high": 2**63 - 1, "low": -(2**63), "s": "x" * MAX_STRING_LENGTH}
    body = _docker_body(_spec(max_scale=RESOURCE_MAXIMUM, labels=labels))
    async with control_plane(tmp_path) as cp:
        created = await cp.create(body)
        assert created["source_config"]["resource_spec"]["max_scale"] == RESOURCE_MAXIMUM
