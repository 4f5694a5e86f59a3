"""`planner serve --dialect service` conforms to the real service's published document.

The document's facts (operations and their statuses, enums, field names and types,
required lists) are in `tests/controlplane/service_document.py`, written by hand from it.
Checked here: the served document has them; every in-scope operation, called in-process
in both modes with valid and invalid requests, answers one of its listed statuses with a
body of its schema; the `/v2/auth/*` operations other than the provider list are not
served (out of scope).

Where the document's schema allows what its prose (or the service's reference) forbids,
the twin follows the prose: `DOCUMENT_LOOSENESS` lists each such case with its rule, and
a test pins the refusal. A schemathesis run with the document as the schema reports
exactly these, besides `BEYOND_THE_DOCUMENT` (what the twin serves that the document
lacks: newer features the real clients use) and `SANDBOX_BOUNDS` (values the sandbox
cannot store); docs/local-control-plane/serve.md has the figures.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from planner.api.rules import Mode
from planner.api.vocabulary import Dialect
from tests.controlplane import service_document as doc
from tests.controlplane.core_fixtures import INTEGRATION_ID, Plane, control_plane, github_body
from tests.controlplane.service_document import T

pytestmark = pytest.mark.anyio

SERVICE = Dialect.SERVICE
UNKNOWN = "00000000-0000-4000-8000-0000000000ff"
LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"
# What the twin answers with besides the document's statuses, on any operation, only when
# asked to: 401/403 (no or a wrong key, another workspace), 413 (a body over 16 MiB), 429
# and 503 (`--rate-limit`, `--error-rate`). None comes up here.
# Values the twin sends that the document's enums predate: newer features of the real
# service its clients use, sent only when a client asks for them.
NEWER_SOURCES = ("internal_template",)
NEWER_DEPLOYMENT_TYPES = ("dev_zero", "dev_free_zero")
NEWER_DEPLOYMENT_STATUSES = ("AWAITING_FINAL_DELETE",)  # while deleting, after AWAITING_DELETE

BEYOND_THE_DOCUMENT = (
    "POST /v2/deployments/{deployment_id}/revisions: one new revision (the Terraform "
    "provider's way to roll out a change)",
    "POST /v2/deployments/{deployment_id}/push-token and /upload-url, POST "
    "/v1/projects/{project_id}/revisions/{revision_id}/build_logs: langgraph-cli's deploy",
    "/local/* (the upload URL's target, the tracing projects) and /metrics: the sandbox's own",
    "display_name; source internal_template with source_config.template_id; "
    "deployment_type dev_zero and dev_free_zero; status AWAITING_FINAL_DELETE",
)
SANDBOX_BOUNDS = (
    "integers within 64 bits (a list's offset included) and finite numbers: SQLite's",
    "strings of at most 16,384 characters, valid Unicode (no lone surrogate), bodies of at "
    "most 16 MiB nested at most 32 levels",
)


def violations(value: Any, kind: Any, where: str = "$") -> list[str]:
    """Where VALUE breaks KIND (a type of `service_document`), one line each."""
    if isinstance(kind, doc.Nullable):
        return [] if value is None else violations(value, kind.of, where)
    if isinstance(kind, doc.ListOf):
        if not isinstance(value, list):
            return [f"{where}: not an array"]
        return [
            v for at, item in enumerate(value) for v in violations(item, kind.of, f"{where}[{at}]")
        ]
    if isinstance(kind, doc.OneOf):
        return [] if value in kind.values else [f"{where}: {value!r} not in {kind.values}"]
    if isinstance(kind, doc.AnyOf):
        if any(not violations(value, each, where) for each in kind.kinds):
            return []
        return [f"{where}: {value!r} is none of {kind.kinds}"]
    if isinstance(kind, doc.Mapping):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        return [v for k, item in value.items() for v in violations(item, kind.of, f"{where}.{k}")]
    if isinstance(kind, doc.Ref):
        return _object_violations(value, doc.SCHEMAS[kind.name], kind.name, where)
    if isinstance(kind, doc.Schema):
        return _object_violations(value, kind, "object", where)
    return [] if _is_kind(value, kind) else [f"{where}: {value!r} is not {kind.value}"]


def _object_violations(value: Any, schema: doc.Schema, name: str, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: not an object ({name})"]
    found = [f"{where}.{key}: required ({name})" for key in sorted(schema.required - set(value))]
    for key, item in value.items():
        if key in schema.fields:
            found += violations(item, schema.fields[key], f"{where}.{key}")
    return found


def _is_kind(value: Any, kind: T) -> bool:
    checks: dict[T, Callable[[Any], bool]] = {
        T.STRING: lambda v: isinstance(v, str),
        T.INTEGER: lambda v: type(v) is int,
        T.NUMBER: lambda v: type(v) in (int, float),
        T.BOOLEAN: lambda v: isinstance(v, bool),
        T.UUID: lambda v: isinstance(v, str) and _parses(uuid.UUID, v),
        T.DATE_TIME: lambda v: isinstance(v, str) and _parses(datetime.fromisoformat, v),
        T.OBJECT: lambda v: isinstance(v, dict),
    }
    return checks[kind](value)


def _parses(parse: Callable[[str], object], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def test_the_checker_finds_what_breaks_a_schema() -> None:
    """The checker itself: a wrong type, a missing required field, a value outside an
    enum, a string id where the document has an integer are each found."""
    revision = {
        "id": "not-a-uuid",
        "created_at": "2026-01-01T00:00:00+00:00",
        "status": "DONE",
        "source": "github",
        "source_revision_config": {"langgraph_config_path": 3},
    }
    found = violations(revision, doc.Ref("Revision"))
    assert found == [
        "$.updated_at: required (Revision)",
        "$.id: 'not-a-uuid' is not uuid",
        f"$.status: 'DONE' not in {doc.REVISION_STATUSES}",
        "$.source_revision_config.langgraph_config_path: 3 is not string",
    ]
    repository = {"host_integration_id": INTEGRATION_ID, "id": "7", "name": "n", "owner": "o"}
    assert "$.id: '7' is not integer" in violations(repository, doc.Ref("GithubRepository"))


# --- The served document ----------------------------------------------------------


async def served_document(tmp_path: Path, mode: Mode = Mode.CLOUD) -> dict[str, Any]:
    async with control_plane(tmp_path, dialect=SERVICE, mode=mode) as cp:
        response = await cp.client.get("/openapi.json")
    document: dict[str, Any] = response.json()
    return document


async def test_the_served_document_has_every_operation_in_scope(tmp_path: Path) -> None:
    """Every operation of the document but the `/v2/auth/*` ones besides the provider
    list is in the served document; those are not."""
    paths = (await served_document(tmp_path))["paths"]
    served = {(method.upper(), path) for path, item in paths.items() for method in item}
    assert set(doc.OPERATIONS) <= served
    assert not served & set(doc.AUTH_OPERATIONS)


async def test_the_served_document_has_the_real_enums(tmp_path: Path) -> None:
    """The served enums are the document's, plus the newer values the real clients use."""
    schemas = (await served_document(tmp_path))["components"]["schemas"]
    assert schemas["Source"]["enum"] == [*doc.SOURCES, *NEWER_SOURCES]
    assert schemas["DeploymentType"]["enum"] == [*doc.DEPLOYMENT_TYPES, *NEWER_DEPLOYMENT_TYPES]
    assert set(schemas["RevisionStatus"]["enum"]) == set(doc.REVISION_STATUSES)
    statuses = set(schemas["DeploymentStatus"]["enum"])
    assert statuses == {*doc.DEPLOYMENT_STATUSES, *NEWER_DEPLOYMENT_STATUSES}
    for source in doc.REVISION_SOURCES:
        patch = schemas[f"PatchBody_{source}"]["properties"]["revision_source"]
        assert patch["anyOf"][0]["enum"] == list(doc.REVISION_SOURCES)
    compute_type = schemas["Listener"]["properties"]["compute_type"]
    assert compute_type.get("enum", [compute_type.get("const")]) == list(doc.COMPUTE_TYPES)


async def test_the_served_document_has_the_real_field_names_and_types(tmp_path: Path) -> None:
    """The served schemas carry every field of the document's (by name), with the
    document's required lists where the twin reads requests, and its integer ids."""
    schemas = (await served_document(tmp_path))["components"]["schemas"]
    pairs = {
        "Deployment": "Deployment",
        "SourceConfig": "SourceConfig",
        "SourceRevisionConfig": "SourceRevisionConfig",
        "ResourceSpec": "ResourceSpec",
        "Revision": "Revision",
        "Listener": "Listener",
        "Container": "Container",
        "VolumeMount": "VolumeMount",
        "NumberedIntegration": "GithubIntegration",
        "NumberedRepository": "GithubRepository",
        "OAuthProvider": "OAuthProvider",
    }
    for ours, theirs in pairs.items():
        assert set(doc.SCHEMAS[theirs].fields) <= set(schemas[ours]["properties"]), ours
    assert set(schemas["ResourceSpec"]["properties"]) == set(doc.SCHEMAS["ResourceSpec"].fields)
    for name in ("NumberedIntegration", "NumberedRepository"):
        key = "installation_id" if name == "NumberedIntegration" else "id"
        assert schemas[name]["properties"][key]["type"] == "integer"
    for source in doc.SOURCES:
        variant = schemas.get(f"DeploymentCreate_{source}")
        if variant is not None:  # the cloud mode's sources
            assert set(variant["required"]) >= doc.CREATE_REQUIRED
            keys = variant["properties"]["source_revision_config"]["properties"]
            assert set(keys) >= doc.REVISION_CONFIG_REQUEST_KEYS
    for name, (low, high) in doc.CPU_BOUNDS.items():
        number = schemas["ResourceSpec"]["properties"][name]["anyOf"][0]
        assert (number["minimum"], number["maximum"]) == (low, high)
    assert set(schemas["ListenerCreate"]["required"]) == doc.LISTENER_CREATE_REQUIRED
    assert set(schemas["ListenerPatch"]["properties"]) == doc.LISTENER_PATCH_KEYS


# --- Every operation's answers --------------------------------------------------------


@dataclass
class Recorder:
    """Calls made through one plane, each answer checked against the document."""

    plane: Plane
    checked: set[tuple[str, str]]

    async def call(
        self,
        method: str,
        template: str,
        expected: int,
        *,
        json: Any = None,
        params: Any = None,
        **ids: str,
    ) -> Any:
        """Call TEMPLATE (its ids filled in) and check the answer: EXPECTED status, one the
        operation lists, and a body of its schema. The body."""
        path = template.format(**ids)
        response = await self.plane.client.request(method, path, json=json, params=params)
        statuses, success = doc.OPERATIONS[(method, template)]
        assert response.status_code == expected, (method, path, response.text)
        assert expected in statuses
        self.checked.add((method, template))
        if expected in (204,):
            assert response.content == b""
            return None
        body = response.json()
        schema = _schema_of(expected, success)
        if schema is not None:  # None: the document gives the answer no schema (any JSON)
            assert violations(body, schema) == [], (method, path, body)
        return body


# The body of a 400, 403, 404 or 409: the document gives none; the twin's is `{detail}`.
ERROR_DETAIL = doc.Schema(fields={"detail": T.STRING}, required=frozenset({"detail"}))


def _schema_of(status: int, success: Any) -> Any:
    if status in (200, 201):
        return success
    if status == 422:
        return doc.Ref("HTTPValidationError")
    return ERROR_DETAIL


async def exercise_cloud(calls: Recorder) -> None:
    """Every in-scope operation of a cloud server, successes and refusals."""
    cp = calls.plane
    for base in ("/v1/integrations/github", "/v1/integrations/forge/github"):
        await calls.call("GET", f"{base}/install", 200)
        repos = f"{base}/{{integration_id}}/repos"
        await calls.call("GET", repos, 200, integration_id=INTEGRATION_ID)
        await calls.call("GET", repos, 200, integration_id=UNKNOWN)
        await calls.call("GET", repos, 422, integration_id="not-a-uuid")
    await calls.call("GET", "/v2/auth/providers", 200)

    created = await calls.call("POST", "/v2/deployments", 201, json=github_body())
    docker = {"name": "img", "source": "internal_docker", "source_config": {}}
    docker |= {"source_revision_config": {"image_uri": "registry.example.com/a:1"}}
    image = await calls.call("POST", "/v2/deployments", 201, json={**docker, "secrets": []})
    await calls.call("POST", "/v2/deployments", 400, json=github_body())  # name taken
    await calls.call("POST", "/v2/deployments", 422, json=docker)  # no secrets
    ids = {"deployment_id": created["id"]}
    await calls.call("GET", "/v2/deployments", 200, params={"limit": 1})
    await calls.call("GET", "/v2/deployments", 200, params={"remote_reconciled": "false"})
    await calls.call("GET", "/v2/deployments", 422, params={"limit": 0})
    await calls.call("GET", doc.DEPLOYMENT, 200, **ids)
    await calls.call("GET", doc.DEPLOYMENT, 404, deployment_id=UNKNOWN)
    await calls.call("GET", doc.DEPLOYMENT, 422, deployment_id="x")
    cp.clock.advance(5)
    patch = {"source_revision_config": {"repo_ref": "v2"}, "revision_source": "github"}
    await calls.call("PATCH", doc.DEPLOYMENT, 200, json=patch, **ids)
    await calls.call("PATCH", doc.DEPLOYMENT, 422, json={"revision_source": "AAA"}, **ids)
    conflict = {"source_revision_config": {"image_uri": "registry.example.com/a:1"}}
    await calls.call("PATCH", doc.DEPLOYMENT, 400, json=conflict, **ids)
    await calls.call("PATCH", doc.DEPLOYMENT, 404, json=patch, deployment_id=UNKNOWN)
    cp.clock.advance(5)
    revisions = f"{doc.DEPLOYMENT}/revisions"
    listed = await calls.call("GET", revisions, 200, params={"status": "DEPLOYED,ANY"}, **ids)
    await calls.call("GET", revisions, 200, params={"remote_reconciled": "true"}, **ids)
    await calls.call("GET", revisions, 404, deployment_id=UNKNOWN)
    await calls.call("GET", revisions, 422, params={"remote_reconciled": "maybe"}, **ids)
    first, second = listed["resources"][1]["id"], listed["resources"][0]["id"]
    await calls.call("GET", doc.REVISION, 200, revision_id=first, **ids)
    await calls.call("GET", doc.REVISION, 404, revision_id=UNKNOWN, **ids)
    redeploy = f"{doc.REVISION}/redeploy"
    await calls.call("POST", redeploy, 200, revision_id=first, **ids)
    latest = (await cp.get(created["id"]))["latest_revision_id"]
    await calls.call("POST", redeploy, 400, revision_id=latest, **ids)  # not deployed yet
    await calls.call("POST", redeploy, 404, revision_id=UNKNOWN, **ids)
    await calls.call("POST", redeploy, 422, revision_id="x", **ids)
    assert second != latest

    await calls.call("GET", "/v2/listeners", 200)
    await calls.call("GET", doc.LISTENER, 200, listener_id=LISTENER)
    await calls.call("GET", doc.LISTENER, 404, listener_id=UNKNOWN)
    new = {"compute_type": "k8s", "compute_id": "edge", "compute_config": {}}
    await calls.call("POST", "/v2/listeners", 403, json=new)  # self-hosted only
    await calls.call("PATCH", doc.LISTENER, 403, json={"version": "1"}, listener_id=LISTENER)
    await calls.call("DELETE", doc.LISTENER, 403, listener_id=LISTENER)

    flag = {"delete_tracing_project": "true"}
    await calls.call("DELETE", doc.DEPLOYMENT, 422, params={"delete_tracing_project": "x"}, **ids)
    await calls.call("DELETE", doc.DEPLOYMENT, 204, params=flag, **ids)
    await calls.call("DELETE", doc.DEPLOYMENT, 404, deployment_id=UNKNOWN)
    bulk = {"deployment_ids": [image["id"]]}
    await calls.call("DELETE", "/v2/deployments", 404, params={"deployment_ids": [UNKNOWN]})
    await calls.call("DELETE", "/v2/deployments", 200, params=bulk)
    await calls.call("DELETE", "/v2/deployments", 422, params={"deployment_ids": ["x"]})


async def exercise_self_hosted(calls: Recorder) -> None:
    """The listener writes, on a self-hosted server."""
    new = {"compute_type": "k8s", "compute_id": "edge", "compute_config": {}}
    created = await calls.call("POST", "/v2/listeners", 201, json=new)
    await calls.call("POST", "/v2/listeners", 409, json=new)
    await calls.call("POST", "/v2/listeners", 422, json={**new, "compute_type": "ecs"})
    ids = {"listener_id": created["id"]}
    await calls.call("PATCH", doc.LISTENER, 200, json={"version": "0.3.1"}, **ids)
    await calls.call("PATCH", doc.LISTENER, 404, json={}, listener_id=UNKNOWN)
    await calls.call("PATCH", doc.LISTENER, 422, json={"compute_config": 3}, **ids)
    await calls.call("DELETE", doc.LISTENER, 204, **ids)
    await calls.call("DELETE", doc.LISTENER, 404, **ids)
    await calls.call("DELETE", doc.LISTENER, 422, listener_id="x")
    await calls.call("GET", "/v2/listeners", 422, params={"offset": -1})
    docker: dict[str, Any] = {
        "name": "hosted",
        "source": "external_docker",
        "source_config": {"listener_id": LISTENER},
        "source_revision_config": {"image_uri": "registry.example.com/a:1"},
        "secrets": [],
    }
    await calls.call("POST", "/v2/deployments", 201, json=docker)


async def test_every_operation_answers_as_the_document_says(tmp_path: Path) -> None:
    """Called in-process with valid and invalid requests, in cloud and self-hosted mode,
    every in-scope operation answers one of the statuses it lists, with a body of its
    schema (the success's, `HTTPValidationError`, or `{detail}`); none is left uncalled."""
    checked: set[tuple[str, str]] = set()
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        await exercise_cloud(Recorder(cp, checked))
    hosted = Mode.SELF_HOSTED
    async with control_plane(tmp_path, dialect=SERVICE, mode=hosted, db_name="h.db") as cp:
        await exercise_self_hosted(Recorder(cp, checked))
    assert checked == set(doc.OPERATIONS)


async def test_the_auth_operations_out_of_scope_are_not_served(tmp_path: Path) -> None:
    """The `/v2/auth/*` operations other than the provider list are out of the twin's
    scope: 404 (405 for the POST beside the served provider list)."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        for method, template in doc.AUTH_OPERATIONS:
            path = template.replace("{", "").replace("}", "")  # any value of each id
            response = await cp.client.request(method, path)
            expected = 405 if path == "/v2/auth/providers" else 404
            assert response.status_code == expected, (method, path)


@pytest.mark.parametrize(("method", "template", "name"), doc.BOOLEAN_QUERIES)
async def test_typed_queries_refuse_what_is_not_their_type(
    tmp_path: Path, method: str, template: str, name: str
) -> None:
    """A query parameter the document types as a boolean is refused (422) otherwise."""
    async with control_plane(tmp_path, dialect=SERVICE) as cp:
        path = template.format(deployment_id=UNKNOWN)
        response = await cp.client.request(method, path, params={name: "maybe"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", name]


# --- Where the document's schema is looser than its prose ---------------------------


@dataclass(frozen=True)
class Looseness:
    """A request the document's schema allows and its prose forbids: the twin refuses it
    (STATUS, one the operation lists), as RULE says."""

    name: str
    rule: str
    method: str
    template: str
    body: Any
    status: int
    mode: Mode = Mode.CLOUD


def _github(**source_config: Any) -> dict[str, Any]:
    body = github_body()
    body["source_config"] = {**body["source_config"], **source_config}
    return body


def _revision_config(**config: Any) -> dict[str, Any]:
    return github_body(source_revision_config=config)


DOCUMENT_LOOSENESS = (
    Looseness(
        "name-is-a-label",
        "A deployment's name names its tracing project and its Kubernetes objects: "
        "lowercase letters, digits and '-', at most 63 (the service's reference; the "
        "schema says only 'string').",
        "POST",
        "/v2/deployments",
        github_body(name="Support Agent"),
        422,
    ),
    Looseness(
        "one-deployment-a-name",
        "A tracing project of the deployment's name is created with it (the name's prose): "
        "a second deployment of one name is refused.",
        "POST",
        "/v2/deployments",
        github_body(name="taken"),
        400,
    ),
    Looseness(
        "github-deploys-a-repository",
        "A github deployment deploys from a repository (the source's prose): its "
        "integration, repository URL and ref are needed on create.",
        "POST",
        "/v2/deployments",
        _github(integration_id=None, repo_url=None),
        422,
    ),
    Looseness(
        "config-path-on-create",
        "langgraph_config_path is required on create for github and internal_source.",
        "POST",
        "/v2/deployments",
        _revision_config(repo_ref="main"),
        422,
    ),
    Looseness(
        "fields-of-another-source",
        "Fields are only applicable for their source (listener_id, listener_config, "
        "custom_url and secret_references for external_docker; integration_id, repo_url, "
        "build_on_push and repo_ref for github; ...).",
        "POST",
        "/v2/deployments",
        _github(listener_id=LISTENER),
        422,
    ),
    Looseness(
        "sources-of-the-mode",
        "Deploying from an external Docker image is only available for self-hosted "
        "deployments (and from GitHub for Cloud SaaS ones).",
        "POST",
        "/v2/deployments",
        {
            "name": "img",
            "source": "external_docker",
            "source_config": {},
            "source_revision_config": {"image_uri": "registry.example.com/a:1"},
            "secrets": [],
        },
        422,
    ),
    Looseness(
        "no-build-on-push-for-a-tag",
        "build_on_push cannot be enabled when repo_ref is a tag (refs/tags/...).",
        "POST",
        "/v2/deployments",
        github_body(
            source_config={
                "integration_id": INTEGRATION_ID,
                "repo_url": "https://git.example.com/acme/support-agent",
                "build_on_push": True,
            },
            source_revision_config={"repo_ref": "refs/tags/v1", "langgraph_config_path": "a"},
        ),
        422,
    ),
    Looseness(
        "secrets-are-environment-variables",
        "Secrets (and secret references' names) are the container's environment "
        "variables: their names are environment variable names.",
        "POST",
        "/v2/deployments",
        github_body(secrets=[{"name": "not a name", "value": "v"}]),
        422,
    ),
    Looseness(
        "quantities-are-not-negative",
        "resource_spec holds replica counts, CPU cores, MB and GiB sizes and a connection "
        "count: none is negative (the CPUs within the schema's bounds).",
        "POST",
        "/v2/deployments",
        _github(resource_spec={"memory_mb": -1}),
        422,
    ),
    Looseness(
        "volumes-have-names",
        "A volume is a Kubernetes Volume specification, which names it.",
        "POST",
        "/v2/deployments",
        _github(resource_spec={"volumes": [{"emptyDir": {}}]}),
        422,
    ),
    Looseness(
        "ids-are-uuids",
        "The deployment list's deployment_ids and tag_value_ids are comma-separated ids, "
        "and ids are uuids.",
        "GET",
        "/v2/deployments?deployment_ids=one,two",
        None,
        422,
    ),
    Looseness(
        "unmodifiable-after-create",
        "integration_id, repo_url, deployment_type and listener_id cannot be changed "
        "(PATCH) once the deployment is created.",
        "PATCH",
        doc.DEPLOYMENT,
        {"source_config": {"repo_url": "https://git.example.com/acme/other"}},
        400,
    ),
)


@pytest.mark.parametrize("case", DOCUMENT_LOOSENESS, ids=lambda case: case.name)
async def test_what_the_prose_forbids_is_refused(tmp_path: Path, case: Looseness) -> None:
    """Each case of `DOCUMENT_LOOSENESS` is refused with its status, one the operation
    lists, and a body of the document's error shape."""
    async with control_plane(tmp_path, dialect=SERVICE, mode=case.mode) as cp:
        taken = await cp.create(github_body(name="taken"))
        path = case.template.format(deployment_id=taken["id"])
        response = await cp.client.request(case.method, path, json=case.body)
    operation = (case.method, case.template.split("?")[0])
    assert response.status_code == case.status, response.text
    assert case.status in doc.OPERATIONS[operation][0]
    assert violations(response.json(), _schema_of(case.status, None)) == []


def test_the_lists_of_exceptions_say_why() -> None:
    """Every exception to the document names its reason (what the twin serves beyond it,
    what the sandbox cannot store, each looseness's rule)."""
    assert all(len(reason) > 40 for reason in (*BEYOND_THE_DOCUMENT, *SANDBOX_BOUNDS))
    assert all(case.rule.endswith(".") for case in DOCUMENT_LOOSENESS)
    assert len({case.name for case in DOCUMENT_LOOSENESS}) == len(DOCUMENT_LOOSENESS)
