"""The client and the server's dialect: `auto` asks the server's OpenAPI document once,
writes go out in the server's words, reads understand either dialect's words."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.client import DOCUMENT_PATH, ControlPlaneClient
from planner.api.errors import ConnectionFailedError
from planner.api.models import (
    DeploymentCreate,
    DeploymentPatch,
    ResourceSpec,
    SourceConfig,
    SourceRevisionConfig,
)
from planner.api.retry import RetryPolicy
from planner.api.rules import Mode
from planner.api.vocabulary import (
    INTEGRATION_SEGMENT,
    RESOURCE_SPEC_KEYS,
    REVISION_CONFIG_KEYS,
    SOURCE_WORDS,
    Dialect,
)
from planner.controlplane.app import create_app
from planner.controlplane.settings import (
    DEFAULT_TENANT_ID,
    EMBEDDED_API_KEY,
    SELF_HOSTED_PREFIX,
    ServerSettings,
)
from planner.errors import ConfigError
from tests.api.api_fakes import SECRET_KEY, TENANT, Scripted, deployment_json, page

pytestmark = pytest.mark.anyio

SEED_GIT, SERVICE_GIT = SOURCE_WORDS[0]
SEED_AGENT, SERVICE_AGENT = REVISION_CONFIG_KEYS[0]
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"


def document(*sources: str) -> dict[str, Any]:
    """A small OpenAPI document whose `source` enum lists SOURCES."""
    schema = {"type": "string", "enum": [*sources, "internal_docker"]}
    return {"openapi": "3.1.0", "components": {"schemas": {"Source": schema}}}


def serving(doc: Any, answer: Callable[[httpx2.Request], httpx2.Response]) -> Scripted:
    """A server that publishes DOC (a dict as JSON, bytes as they are, None: 404) at
    /openapi.json (under any prefix) and answers every other request with ANSWER."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith(DOCUMENT_PATH):
            if doc is None:
                return httpx2.Response(404, json={"detail": "Not Found"})
            content = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
            return httpx2.Response(200, content=content)
        return answer(request)

    return Scripted(handle)


def client_of(
    scripted: Scripted, dialect: Dialect | None = None, base_url: str = "https://cp.example"
) -> ControlPlaneClient:
    return ControlPlaneClient(
        base_url,
        SECRET_KEY,
        TENANT,
        transport=httpx2.MockTransport(scripted),
        retry=RetryPolicy(max_attempts=1),
        dialect=dialect,
    )


def git_create() -> DeploymentCreate:
    return DeploymentCreate.model_validate(
        {
            "name": "api",
            "source": SEED_GIT,
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/api",
                "resource_spec": {seed: size(seed) for seed, _ in RESOURCE_SPEC_KEYS},
            },
            "source_revision_config": {"repo_ref": "main", SEED_AGENT: "agent.json"},
        }
    )


def created(_: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(201, json=deployment_json("d1", "api"))


async def test_auto_asks_the_document_once_before_the_first_request() -> None:
    """Ten concurrent first reads cost one document request, sent first, under the prefix."""
    scripted = serving(
        document(SEED_GIT), lambda r: httpx2.Response(200, json=deployment_json("d"))
    )
    async with client_of(scripted, base_url="https://cp.example/api-host") as client:
        await asyncio.gather(*(client.get_deployment("d") for _ in range(10)))
        assert client.dialect is Dialect.SEED
    paths = [r.url.path for r in scripted.requests]
    assert paths[0] == "/api-host" + DOCUMENT_PATH
    assert paths.count("/api-host" + DOCUMENT_PATH) == 1 and len(paths) == 11


async def test_a_client_that_sends_nothing_asks_nothing() -> None:
    """The document is read lazily: a client opened and closed sends no request."""
    scripted = serving(document(SEED_GIT), created)
    async with client_of(scripted):
        pass
    assert scripted.requests == []


async def test_a_given_dialect_is_never_asked() -> None:
    """`seed` or `service` set: no document request, the writes in that dialect's words."""
    scripted = serving(None, created)
    async with client_of(scripted, Dialect.SERVICE) as client:
        await client.create_deployment(git_create())
    assert [r.url.path for r in scripted.requests] == ["/v2/deployments"]


async def test_a_service_server_gets_its_words_in_every_write() -> None:
    """Against a server whose document names the service's git source, the create, the
    PATCH and the integration paths use the service's words; the seed's appear nowhere."""
    patch = DeploymentPatch(
        source_config=SourceConfig(resource_spec=ResourceSpec(cache_cpu=2)),
        source_revision_config=SourceRevisionConfig(agent_config_path="other.json"),
    )

    def answer(request: httpx2.Request) -> httpx2.Response:
        if "/v1/integrations/" in request.url.path:
            return httpx2.Response(200, json=[])
        return created(request)

    scripted = serving(document(SERVICE_GIT, "external_docker"), answer)
    async with client_of(scripted) as client:
        await client.create_deployment(git_create())
        await client.patch_deployment("d1", patch)
        await client.list_integrations()
        await client.list_repositories(INTEGRATION)
    create, patched = scripted.bodies()[1:3]
    assert create["source"] == SERVICE_GIT
    assert create["source_revision_config"] == {"repo_ref": "main", SERVICE_AGENT: "agent.json"}
    assert create["source_config"]["resource_spec"] == {
        svc: size(svc) for _, svc in RESOURCE_SPEC_KEYS
    }
    assert patched == {
        "source_config": {"resource_spec": {RESOURCE_SPEC_KEYS[0][1]: 2.0}},
        "source_revision_config": {SERVICE_AGENT: "other.json"},
    }
    segment = INTEGRATION_SEGMENT[1]
    assert [r.url.path for r in scripted.requests[3:]] == [
        f"/v1/integrations/{segment}/install",
        f"/v1/integrations/{segment}/{INTEGRATION}/repos",
    ]
    sent = b"".join(r.content for r in scripted.requests)
    assert SEED_GIT.encode() not in sent and SEED_AGENT.encode() not in sent


async def test_the_local_control_plane_reads_as_the_seed(tmp_path: Path) -> None:
    """`planner serve`'s own document (self-hosted: under /api-host) says seed."""
    settings = ServerSettings(db_path=tmp_path / "cp.db", mode=Mode.SELF_HOSTED)
    app = create_app(settings)
    client = ControlPlaneClient(
        "http://local.test" + SELF_HOSTED_PREFIX,
        EMBEDDED_API_KEY,
        DEFAULT_TENANT_ID,
        transport=httpx2.ASGITransport(app=app),
        on_close=app.state.store.close,
        dialect=None,
    )
    async with client:
        assert await client.speaks() is Dialect.SEED


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        (None, "answered 404"),
        (b"<html>not json</html>", "not readable JSON"),
        (document("external_docker"), "names neither"),
        (document(SEED_GIT, SERVICE_GIT), "names neither"),
    ],
    ids=["no-document", "not-json", "neither-word", "both-words"],
)
async def test_a_server_that_cannot_tell_is_an_error_naming_the_setting(
    doc: Any, problem: str
) -> None:
    """No document, an unreadable one, or one naming neither (or both) git sources: an
    error naming the setting, before anything is written."""
    scripted = serving(doc, created)
    async with client_of(scripted) as client:
        with pytest.raises(ConfigError) as caught:
            await client.create_deployment(git_create())
    assert problem in caught.value.message
    assert "[control_plane] dialect" in (caught.value.hint or "")
    assert "PLANNER_DIALECT" in (caught.value.hint or "")
    assert "--dialect" in (caught.value.hint or "")
    assert [r.url.path for r in scripted.requests] == [DOCUMENT_PATH]


async def test_a_server_that_does_not_answer_is_a_connection_error() -> None:
    """No answer at all is what any first request would say, not a dialect problem."""

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    async with client_of(Scripted(refuse)) as client:
        with pytest.raises(ConnectionFailedError):
            await client.get_deployment("d")


def size(key: str) -> float | int:
    """A value for a sizing key: CPUs are numbers, memory whole megabytes."""
    return 0.5 if "cpu" in key else 512


def service_deployment(deployment_id: str) -> dict[str, Any]:
    """A deployment as the real service sends it: its words, a key no model knows."""
    doc = deployment_json(deployment_id, "real")
    doc["source"] = SERVICE_GIT
    doc["source_config"] = {
        "integration_id": INTEGRATION,
        "repo_url": "https://git.example.com/acme/real",
        "resource_spec": {svc: size(svc) for _, svc in RESOURCE_SPEC_KEYS} | {"cpu": 1},
    }
    doc["source_revision_config"] = {"repo_ref": "main", SERVICE_AGENT: "langgraph.json"}
    return doc


@pytest.mark.parametrize("dialect", list(Dialect))
async def test_reads_understand_both_dialects_whatever_the_client_speaks(
    dialect: Dialect,
) -> None:
    """A list page holding a deployment in the service's words and one in the seed's reads
    whole, in the seed's words, against a client of either dialect."""
    resources = [service_deployment("d1"), deployment_json("d2")]
    scripted = Scripted(lambda r: page(resources, 2))
    async with client_of(scripted, dialect) as client:
        listed = await client.list_deployments(limit=20)
    real = listed.resources[0]
    assert [d.source for d in listed.resources] == [SEED_GIT, SEED_GIT]
    assert real.source_revision_config.agent_config_path == "langgraph.json"
    spec = real.source_config.resource_spec
    assert spec is not None
    assert {seed: getattr(spec, seed) for seed, _ in RESOURCE_SPEC_KEYS} == {
        seed: size(svc) for seed, svc in RESOURCE_SPEC_KEYS
    }


async def test_integer_ids_of_integrations_and_repositories_read_as_text() -> None:
    """The service's whole-number `installation_id` and repository `id` read as the seed's
    strings."""
    integrations = [{"id": INTEGRATION, "installation_id": 41000001, "name": "acme"}]
    repositories = [
        {
            "host_integration_id": INTEGRATION,
            "id": 700000001,
            "name": "api",
            "owner": "acme",
            "url": "https://git.example.com/acme/api",
            "default_branch": "main",
        }
    ]

    def answer(request: httpx2.Request) -> httpx2.Response:
        listed = repositories if request.url.path.endswith("/repos") else integrations
        return httpx2.Response(200, json=listed)

    async with client_of(serving(document(SERVICE_GIT), answer)) as client:
        [integration] = await client.list_integrations()
        [repository] = await client.list_repositories(INTEGRATION)
    assert integration.installation_id == "41000001"
    assert repository.id == "700000001"


async def test_concurrent_first_requests_to_a_server_that_cannot_tell_ask_once() -> None:
    """Four reads at once against a server without a document: one document request,
    and each read fails with the same error naming the setting."""
    scripted = serving(None, lambda r: httpx2.Response(200, json=deployment_json("d")))
    async with client_of(scripted) as client:
        results = await asyncio.gather(
            *(client.get_deployment("d") for _ in range(4)), return_exceptions=True
        )
    assert all(isinstance(result, ConfigError) for result in results)
    assert [r.url.path for r in scripted.requests] == [DOCUMENT_PATH]
