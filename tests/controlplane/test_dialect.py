"""`--dialect`: the seed's words or the real service's, on the same store.

The service dialect reads and answers in the service's words (`github`,
`langgraph_config_path`, `redis_*`), refuses the seed's where the service's enums refuse
them, drops seed-spelled keys as the service drops keys it does not know, and keeps the
seed's words in its store. Both dialects serve the newer features the real clients use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.api.vocabulary import Dialect
from planner.controlplane.app import create_app
from planner.controlplane.settings import ServerSettings
from planner.errors import ConfigError
from tests.controlplane.core_fixtures import (
    INTEGRATION_ID,
    control_plane,
    git_host_body,
    github_body,
)

pytestmark = pytest.mark.anyio

SERVICE = Dialect.SERVICE


async def test_a_service_create_is_read_back_in_the_service_words(tmp_path: Path) -> None:
    """A `github` create with `langgraph_config_path` and `redis_*` answers, reads, lists
    and lists revisions in those words, never the seed's."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        read = await cp.get(created["id"])
        listed = (await cp.client.get("/v2/deployments")).json()["resources"]
        revisions = await cp.revisions(created["id"])
    for deployment in (created, read, listed[0]):
        assert deployment["source"] == "github"
        assert deployment["source_revision_config"]["langgraph_config_path"] == "agent.json"
        spec = deployment["source_config"]["resource_spec"]
        assert (spec["redis_cpu"], spec["redis_memory_mb"]) == (0.5, 512)
        assert "agent_config_path" not in deployment["source_revision_config"]
        assert not any(key.startswith("cache_") for key in spec)
    assert revisions[0]["source"] == "github"
    assert revisions[0]["source_revision_config"]["langgraph_config_path"] == "agent.json"


async def test_the_store_keeps_the_seed_words(tmp_path: Path) -> None:
    """What a service-dialect server stored, a seed-dialect server over the same file
    reads in the seed's words: one store, two edges."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
    async with control_plane(tmp_path) as seed:
        read = await seed.get(created["id"])
    assert read["source"] == "git_host"
    assert read["source_revision_config"]["agent_config_path"] == "agent.json"
    assert read["source_config"]["resource_spec"]["cache_cpu"] == 0.5


async def test_the_service_refuses_the_seed_source_word(tmp_path: Path) -> None:
    """`source: git_host` is outside the service's enum: 422 on `source`, naming its values."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        response = await cp.client.post("/v2/deployments", json=github_body(source="git_host"))
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "source"] and problem["type"] == "enum"
    assert "'github'" in problem["msg"] and "git_host" not in problem["msg"]


async def test_the_seed_refuses_the_service_source_word(tmp_path: Path) -> None:
    """And the other way round: the seed dialect answers `source: github` with 422."""
    async with control_plane(tmp_path) as cp:
        response = await cp.client.post("/v2/deployments", json=github_body())
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "source"]


async def test_seed_spelled_keys_are_unknown_to_the_service(tmp_path: Path) -> None:
    """`agent_config_path` and `cache_*` are keys the service does not know: dropped, so a
    `github` create naming the config path only so is missing `langgraph_config_path`
    (422 in the service's words), and a `cache_cpu` is not stored."""
    seed_keys = github_body(
        source_revision_config={"repo_ref": "main", "agent_config_path": "agent.json"}
    )
    cache = github_body(name="cache")
    cache["source_config"]["resource_spec"] = {"cpu": 1, "cache_cpu": 2}
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        refused = await cp.client.post("/v2/deployments", json=seed_keys)
        created = await cp.create(cache)
    assert refused.status_code == 422
    locs = [problem["loc"] for problem in refused.json()["detail"]]
    assert locs == [["body", "source_revision_config", "langgraph_config_path"]]
    assert "github" in refused.json()["detail"][0]["msg"]
    assert created["source_config"]["resource_spec"] == {"cpu": 1}


async def test_the_service_requires_what_its_create_requires(tmp_path: Path) -> None:
    """The service's create body requires `source_config`, `source_revision_config` and
    `secrets`; the seed's takes an internal_docker create without them."""
    bare = {"name": "bare", "source": "internal_docker"}
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        refused = await cp.client.post("/v2/deployments", json=bare)
    async with control_plane(tmp_path, db_name="seed.db") as seed:
        accepted = await seed.client.post("/v2/deployments", json=bare)
    assert refused.status_code == 422
    missing = sorted(problem["loc"][1] for problem in refused.json()["detail"])
    assert missing == ["secrets", "source_config", "source_revision_config"]
    assert {problem["type"] for problem in refused.json()["detail"]} == {"missing"}
    assert accepted.status_code == 201


@pytest.mark.parametrize(("dialect", "status"), [(Dialect.SEED, 409), (SERVICE, 400)])
async def test_a_taken_name_is_the_dialects_status(
    tmp_path: Path, dialect: Dialect, status: int
) -> None:
    """A second create of one name: 409 in the seed, 400 in the service (its document lists
    400 and no 409 for a create), the same detail."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    async with control_plane(tmp_path, dialect=dialect) as cp:
        await cp.create(body)
        again = await cp.client.post("/v2/deployments", json=body)
    assert again.status_code == status
    assert again.json() == {"detail": "A deployment named 'support-agent' already exists."}


async def test_a_patch_conflict_is_a_400_in_the_service_words(tmp_path: Path) -> None:
    """A PATCH the deployment refuses (a field of another source) is a 400 whose detail
    names the fields and source as the service spells them."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        response = await cp.client.patch(
            f"/v2/deployments/{created['id']}",
            json={"source_revision_config": {"image_uri": "registry.example.com/a:1"}},
        )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "source 'github'" in detail and "git_host" not in detail


async def test_a_service_patch_ignores_name_and_source(tmp_path: Path) -> None:
    """`name` and `source` are not keys of the service's PATCH body: ignored, where the
    seed dialect refuses another value (400)."""
    body = {"name": "other", "source": "internal_docker", "display_name": "Support"}
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        patched = await cp.patch(created["id"], body)
    assert (patched["name"], patched["source"]) == ("support-agent", "github")
    assert patched["display_name"] == "Support"


@pytest.mark.parametrize("value", ["AAA", "git_host", "external_docker", 3])
async def test_revision_source_is_the_services_enum(tmp_path: Path, value: Any) -> None:
    """A PATCH's `revision_source` is one of `github`, `internal_docker`,
    `internal_source` (or null): anything else is a 422 on it."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        response = await cp.client.patch(
            f"/v2/deployments/{created['id']}", json={"revision_source": value}
        )
        accepted = await cp.client.patch(
            f"/v2/deployments/{created['id']}", json={"revision_source": "github"}
        )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "revision_source"]
    assert accepted.status_code == 200


async def test_integrations_in_each_dialect(tmp_path: Path) -> None:
    """The seed serves `/v1/integrations/git_host/...` with string ids; the service
    `/v1/integrations/github/...` and its `forge/github` twins with integer ids, and an
    empty list for an integration the workspace does not have (its document lists no 404)."""
    unknown = "00000000-0000-4000-8000-0000000000ff"
    async with control_plane(tmp_path) as seed:
        seed_install = (await seed.client.get("/v1/integrations/git_host/install")).json()
        seed_repos = await seed.client.get(f"/v1/integrations/git_host/{INTEGRATION_ID}/repos")
        seed_unknown = await seed.client.get(f"/v1/integrations/git_host/{unknown}/repos")
        seed_other = await seed.client.get("/v1/integrations/github/install")
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        other = await cp.client.get("/v1/integrations/git_host/install")
        served = {}
        for base in ("/v1/integrations/github", "/v1/integrations/forge/github"):
            install = (await cp.client.get(f"{base}/install")).json()
            repos = (await cp.client.get(f"{base}/{INTEGRATION_ID}/repos")).json()
            none = await cp.client.get(f"{base}/{unknown}/repos")
            served[base] = (install, repos, none.status_code, none.json())
    assert seed_install[0]["installation_id"] == "41000001"
    assert seed_repos.json()[0]["id"] == "700000001"
    assert (seed_unknown.status_code, seed_other.status_code, other.status_code) == (404,) * 3
    for install, repos, status, none in served.values():
        assert install == [{**seed_install[0], "installation_id": 41000001}]
        assert [r["id"] for r in repos] == [int(r["id"]) for r in seed_repos.json()]
        assert (status, none) == (200, [])


def test_ids_the_service_cannot_send_are_refused_at_start(tmp_path: Path) -> None:
    """A seed file whose installation id is not a whole number cannot be served in the
    service dialect: the app refuses to start, naming the field."""
    seed = tmp_path / "seed.toml"
    seed.write_text(
        '[[integrations]]\nid = "9a0e7c55-0000-4000-8000-00000000a001"\n'
        'installation_id = "acme"\nname = "acme"\n'
    )
    settings = ServerSettings(db_path=tmp_path / "x.db", seed_file=seed, dialect=SERVICE)
    with pytest.raises(ConfigError) as raised:
        create_app(settings)
    assert raised.value.details == ["integrations.0.installation_id: must be a whole number"]
    create_app(ServerSettings(db_path=tmp_path / "y.db", seed_file=seed)).state.store.close()


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_the_document_names_its_dialect(tmp_path: Path, dialect: Dialect) -> None:
    """`/openapi.json` says which dialect the server speaks: `info.x-planner-dialect`, and
    the `Source` enum's git word; no word of the other dialect appears in it."""
    git, other = ("git_host", "github") if dialect is Dialect.SEED else ("github", "git_host")
    async with control_plane(tmp_path, dialect=dialect) as cp:
        response = await cp.client.get("/openapi.json")
    document = response.json()
    assert document["info"]["x-planner-dialect"] == dialect.value
    assert git in document["components"]["schemas"]["Source"]["enum"]
    assert other not in response.text


async def test_the_service_document_says_what_the_service_does(tmp_path: Path) -> None:
    """The service's document: its words in property names and required lists, its
    create's required keys, `revision_source` in the PATCH, no 409 where a conflict is a
    400, and its integration paths."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        document = (await cp.client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    assert "langgraph_config_path" in schemas["SourceRevisionConfig"]["properties"]
    assert "redis_memory_limit_mb" in schemas["ResourceSpec"]["properties"]
    git_create = schemas["DeploymentCreate_github"]
    assert {"secrets", "source_config", "source_revision_config"} <= set(git_create["required"])
    revision_config = git_create["properties"]["source_revision_config"]
    assert "langgraph_config_path" in revision_config["required"]
    patch = schemas["PatchBody_github"]["properties"]
    assert "name" not in patch and "source" not in patch
    assert patch["revision_source"]["anyOf"][0]["enum"] == [
        "github",
        "internal_docker",
        "internal_source",
    ]
    paths = document["paths"]
    assert "409" not in paths["/v2/deployments"]["post"]["responses"]
    assert "409" not in paths["/v2/deployments/{deployment_id}"]["patch"]["responses"]
    assert "/v1/integrations/forge/github/{integration_id}/repos" in paths


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_template_id_is_returned_on_every_read(tmp_path: Path, dialect: Dialect) -> None:
    """An `internal_template` create's `source_config.template_id` comes back from the
    create, the read and the list (the Terraform provider fails its apply without it)."""
    body = {
        "name": "templated",
        "source": "internal_template",
        "source_config": {"template_id": "react-agent", "deployment_type": "dev_zero"},
        "source_revision_config": {},
        "secrets": [],
    }
    async with control_plane(tmp_path, dialect=dialect) as cp:
        created = await cp.create(body)
        read = await cp.get(created["id"])
        listed = (await cp.client.get("/v2/deployments")).json()["resources"][0]
        changed = await cp.client.patch(
            f"/v2/deployments/{created['id']}", json={"source_config": {"template_id": "other"}}
        )
    for deployment in (created, read, listed):
        assert deployment["source_config"]["template_id"] == "react-agent"
        assert deployment["source_config"]["deployment_type"] == "dev_zero"
    assert changed.status_code == 400  # immutable, as the provider's replace says


@pytest.mark.parametrize("dialect", list(Dialect))
@pytest.mark.parametrize("tier", ["dev_zero", "dev_free_zero"])
async def test_the_newer_deployment_types_are_accepted(
    tmp_path: Path, dialect: Dialect, tier: str
) -> None:
    """`dev_zero` and `dev_free_zero` are deployment types in both dialects (create, and
    the list's filter)."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    body["source_config"]["deployment_type"] = tier
    async with control_plane(tmp_path, dialect=dialect) as cp:
        created = await cp.create(body)
        filtered = await cp.client.get("/v2/deployments", params={"deployment_type": tier})
    assert created["source_config"]["deployment_type"] == tier
    assert [d["id"] for d in filtered.json()["resources"]] == [created["id"]]


async def test_a_template_id_belongs_to_internal_template(tmp_path: Path) -> None:
    """`template_id` on another source is refused, naming the source it belongs to."""
    body = github_body()
    body["source_config"]["template_id"] = "react-agent"
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        response = await cp.client.post("/v2/deployments", json=body)
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "source_config", "template_id"]
    assert "internal_template" in problem["msg"]


@pytest.mark.parametrize(("dialect", "status"), [(Dialect.SEED, 422), (SERVICE, 200)])
async def test_the_revision_status_filter_of_each_dialect(
    tmp_path: Path, dialect: Dialect, status: int
) -> None:
    """The seed takes known revision statuses only; the service's document any string,
    and a status no revision has matches none."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    async with control_plane(tmp_path, dialect=dialect) as cp:
        created = await cp.create(body)
        path = f"/v2/deployments/{created['id']}/revisions"
        unknown = await cp.client.get(path, params={"status": "DEPLOYED,NOT_A_STATUS"})
        known = await cp.client.get(path, params={"status": "QUEUED"})
    assert unknown.status_code == status
    if status == 422:
        assert unknown.json()["detail"][0]["loc"] == ["query", "status"]
    else:
        assert unknown.json() == {"resources": [], "offset": 0}
    assert [r["id"] for r in known.json()["resources"]] == [created["latest_revision_id"]]


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_typed_booleans_in_the_query(tmp_path: Path, dialect: Dialect) -> None:
    """The revision list's `remote_reconciled` and a delete's `delete_tracing_project` are
    booleans (422 otherwise); no local revision is reconciled remotely."""
    body = git_host_body() if dialect is Dialect.SEED else github_body()
    async with control_plane(tmp_path, dialect=dialect) as cp:
        created = await cp.create(body)
        path = f"/v2/deployments/{created['id']}"
        reconciled = await cp.client.get(f"{path}/revisions", params={"remote_reconciled": "true"})
        everything = await cp.client.get(f"{path}/revisions", params={"remote_reconciled": "no"})
        not_a_flag = await cp.client.get(f"{path}/revisions", params={"remote_reconciled": "x"})
        bad_delete = await cp.client.delete(path, params={"delete_tracing_project": "maybe"})
        deleted = await cp.client.delete(path, params={"delete_tracing_project": "true"})
    assert reconciled.json()["resources"] == []
    assert len(everything.json()["resources"]) == 1
    assert not_a_flag.status_code == 422
    assert not_a_flag.json()["detail"][0]["loc"] == ["query", "remote_reconciled"]
    assert bad_delete.status_code == 422
    assert bad_delete.json()["detail"][0]["loc"] == ["query", "delete_tracing_project"]
    assert deleted.status_code == 204


@pytest.mark.parametrize(
    ("spec", "loc", "kind"),
    [
        ({"cpu": 8.5}, ["cpu"], "less_than_equal"),
        ({"redis_cpu": 0.05}, ["redis_cpu"], "greater_than_equal"),
        ({"redis_cpu_limit": 16.5}, ["redis_cpu_limit"], "less_than_equal"),
        ({"labels": {"team": 3}}, ["labels", "team"], "string_type"),
        ({"sidecars": [{"name": "proxy"}]}, ["sidecars", 0, "image"], "missing"),
        ({"sidecars": [{"name": "p", "image": None}]}, ["sidecars", 0, "image"], "string_type"),
        (
            {"init_containers": [{"name": "i", "image": "x", "resources": {"limits": {"a": 1}}}]},
            ["init_containers", 0, "resources", "limits", "a"],
            "string_type",
        ),
        ({"volume_mounts": [{"name": None}]}, ["volume_mounts", 0, "name"], "string_type"),
    ],
)
async def test_the_service_bounds_what_its_document_bounds(
    tmp_path: Path, spec: dict[str, Any], loc: list[Any], kind: str
) -> None:
    """The service's document bounds CPUs (0.1 to 8, limits to 16), makes labels,
    annotations and container resources maps of strings, requires a container's image and
    keeps a mount's name a string: a create, PATCH or new revision breaking one is a 422
    on it; the seed takes the same spec."""
    where = ["body", "source_config", "resource_spec", *loc]
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        path = f"/v2/deployments/{created['id']}"
        answers = [
            await cp.client.post("/v2/deployments", json=_with_spec(github_body("b"), spec)),
            await cp.client.patch(path, json={"source_config": {"resource_spec": spec}}),
            await cp.client.post(
                f"{path}/revisions",
                json={"source_revision_config": {}, "source_config": {"resource_spec": spec}},
            ),
        ]
    for answer in answers:
        assert answer.status_code == 422
        assert [(p["loc"], p["type"]) for p in answer.json()["detail"]] == [(where, kind)]
    async with control_plane(tmp_path, db_name="seed.db") as seed:
        seed_spec = {k.replace("redis_", "cache_"): v for k, v in spec.items()}
        accepted = await seed.client.post(
            "/v2/deployments", json=_with_spec(git_host_body(), seed_spec)
        )
    assert accepted.status_code == 201, accepted.text


def _with_spec(body: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    body["source_config"]["resource_spec"] = spec
    return body


@pytest.mark.parametrize(("dialect", "status"), [(Dialect.SEED, 400), (SERVICE, 422)])
@pytest.mark.parametrize("content", [b"{", b"\xc5\x02@\xa8"])
async def test_a_body_that_is_not_json(
    tmp_path: Path, dialect: Dialect, status: int, content: bytes
) -> None:
    """The seed answers a body that is not JSON (or not even text) with 400 `{detail}`;
    the service as its framework does, 422 `json_invalid`, on every write."""
    async with control_plane(tmp_path, dialect=dialect) as cp:
        answers = [
            await cp.client.request(
                method, path, content=content, headers={"Content-Type": "application/json"}
            )
            for method, path in (("POST", "/v2/listeners"), ("PATCH", "/v2/listeners/x"))
        ]
    for response in answers:
        assert response.status_code == status
        if status == 422:
            assert response.json()["detail"][0]["type"] == "json_invalid"


async def test_any_spelling_of_an_id_is_read_in_the_service_words(tmp_path: Path) -> None:
    """An id the route accepts in another spelling (upper case, braces) does not slip a
    body past the dialect: it is read in the service's words all the same."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        created = await cp.create(github_body())
        braced = "{" + created["id"].upper() + "}"
        refused = await cp.client.patch(
            f"/v2/deployments/{braced}", json={"revision_source": "AAA"}
        )
        patched = await cp.patch(
            braced, {"source_revision_config": {"langgraph_config_path": "other.json"}}
        )
    assert refused.status_code == 422
    assert patched["source_revision_config"]["langgraph_config_path"] == "other.json"
