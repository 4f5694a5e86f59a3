"""The official Terraform provider's `langsmith_deployment` flow, replayed over loopback
HTTP against a local control plane, request for request as its public documentation and
source describe it (docs/resources/deployment.md, internal/provider/deployment_resource.go
of langchain-ai/terraform-provider-langsmith):

- create: POST /v2/deployments (no display name), then PATCH {display_name}, then poll
  the latest revision until DEPLOYED/SKIPPED, then read;
- read: GET the deployment, then GET its latest revision (`latest_revision_status`);
- update in place: one PATCH of the changed `display_name` / `build_on_push` /
  `custom_url`, which must make no revision;
- update that needs a revision: GET (to merge `resource_spec`), then
  POST /v2/deployments/{id}/revisions, poll it, read;
- the `langsmith_deployment_revisions` data source: GET .../revisions?status=A,B;
- import by id: a read with no prior state, adopting the service's values;
- destroy: DELETE /v2/deployments/{id} (404 = already gone), then GET until 404.

The provider's names are the service's; ours are the seed's neutral ones (`git_host` for
its `github`, `agent_config_path` for its `langgraph_config_path`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.rules import Mode
from planner.controlplane.settings import SELF_HOSTED_PREFIX, ServerSettings
from tests.loopback import served

API_KEY = "terraform-key"
WORKSPACE = "6f1c2c1e-0000-4000-8000-00000000000a"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"
SUCCESS = ("DEPLOYED", "SKIPPED")
FAILURE = ("CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED")


def normalize_api_url(api_url: str) -> str:
    """The provider's `normalizeAPIURL`: a trailing /api/v1 is dropped."""
    return api_url.strip().rstrip("/").removesuffix("/api/v1")


class Provider:
    """The provider's requests for one `langsmith_deployment`, as its Go code sends them."""

    def __init__(self, api_url: str) -> None:
        self.http = httpx2.Client(
            base_url=normalize_api_url(api_url),
            headers={"X-Api-Key": API_KEY, "X-Tenant-Id": WORKSPACE},
            timeout=30,
        )
        self.sent: list[tuple[str, str]] = []

    def call(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.sent.append((method, path))
        return self.http.request(method, path, json=body, params=params)

    def ok(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        response = self.call(method, path, body, params)
        assert response.is_success, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def wait_for_revision(self, deployment_id: str, revision_id: str) -> dict[str, Any]:
        path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}"
        deadline = time.monotonic() + 20
        while True:
            revision = self.ok("GET", path)
            assert revision["status"] not in FAILURE, revision
            if revision["status"] in SUCCESS:
                return dict(revision)
            assert time.monotonic() < deadline, revision
            time.sleep(0.05)

    def read(self, deployment_id: str) -> dict[str, Any]:
        """The deployment and its latest revision's status (`read`)."""
        deployment = dict(self.ok("GET", f"/v2/deployments/{deployment_id}"))
        latest = deployment["latest_revision_id"]
        revision = self.ok("GET", f"/v2/deployments/{deployment_id}/revisions/{latest}")
        deployment["latest_revision_status"] = revision["status"]
        return deployment

    def create(self, config: dict[str, Any]) -> dict[str, Any]:
        payload = {key: value for key, value in config.items() if key != "display_name"}
        created = self.ok("POST", "/v2/deployments", payload)
        assert created["id"] and created["latest_revision_id"]
        if "display_name" in config:
            self.ok(
                "PATCH",
                f"/v2/deployments/{created['id']}",
                {"display_name": config["display_name"]},
            )
        self.wait_for_revision(created["id"], created["latest_revision_id"])
        return self.read(created["id"])

    def update_in_place(self, deployment_id: str, mutable: dict[str, Any]) -> dict[str, Any]:
        self.ok("PATCH", f"/v2/deployments/{deployment_id}", mutable)
        return self.read(deployment_id)

    def update_with_revision(
        self, deployment_id: str, revision_payload: dict[str, Any], resource_spec: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        current = self.ok("GET", f"/v2/deployments/{deployment_id}")
        merged = {**(current["source_config"].get("resource_spec") or {}), **resource_spec}
        payload = {**revision_payload, "source_config": {"resource_spec": merged}}
        response = self.call("POST", f"/v2/deployments/{deployment_id}/revisions", payload)
        assert response.status_code == 201, response.text
        revision = response.json()
        waited = self.wait_for_revision(deployment_id, revision["id"])
        return revision | {"status": waited["status"]}, self.read(deployment_id)

    def import_by_id(self, deployment_id: str) -> dict[str, Any]:
        """ImportState sets only the id; the read that follows adopts the service's view."""
        api = self.read(deployment_id)
        revision_config = api["source_revision_config"]
        return {
            "name": api["name"],
            "source": api["source"],
            "display_name": api["display_name"],
            "source_config": {
                key: api["source_config"].get(key)
                for key in ("integration_id", "repo_url", "deployment_type", "build_on_push")
            },
            "source_revision_config": {
                "repo_ref": revision_config.get("repo_ref"),
                "agent_config_path": revision_config.get("agent_config_path"),
            },
        }

    def destroy(self, deployment_id: str) -> list[str]:
        """DELETE, then GET until 404; the statuses seen on the way."""
        response = self.call("DELETE", f"/v2/deployments/{deployment_id}")
        if response.status_code == 404:
            return []
        assert response.status_code == 204 and response.content == b"", response.text
        seen: list[str] = []
        deadline = time.monotonic() + 20
        while True:
            response = self.call("GET", f"/v2/deployments/{deployment_id}")
            if response.status_code == 404:
                return seen
            assert response.status_code == 200, response.text
            seen.append(response.json()["status"])
            assert time.monotonic() < deadline, seen
            time.sleep(0.02)


def settings(tmp_path: Path, mode: Mode = Mode.CLOUD) -> ServerSettings:
    return ServerSettings(
        db_path=tmp_path / f"cp-{mode}.db",
        api_keys={API_KEY: [WORKSPACE]},
        build_seconds=0.2,
        deploy_seconds=0.2,
        delete_seconds=0.4,
        mode=mode,
    )


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[Provider]:
    """The provider configured with `api_url = "<planner serve>/api/v1"`, as documented."""
    with served(settings(tmp_path)) as url:
        replay = Provider(url + "/api/v1")
        try:
            yield replay
        finally:
            replay.http.close()


CONFIG: dict[str, Any] = {
    "name": "support-agent",
    "display_name": "Support Agent",
    "source": "git_host",
    "source_config": {
        "integration_id": INTEGRATION,
        "repo_url": "https://git.example.com/acme/support-agent",
        "deployment_type": "prod",  # the provider's default for a cloud create
        "build_on_push": True,
        "resource_spec": {"min_scale": 1, "max_scale": 2},
    },
    "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
    "secrets": [{"name": "LOG_LEVEL", "value": "info"}],
}


def test_create_update_revision_read_import_destroy(provider: Provider) -> None:
    """The documented lifecycle, each step leaving exactly what the provider then reads."""
    created = provider.create(CONFIG)
    deployment_id = created["id"]
    assert created["display_name"] == "Support Agent"
    assert created["latest_revision_status"] == "DEPLOYED"
    assert created["source_config"]["build_on_push"] is True
    assert created["source_config"]["deployment_type"] == "prod"
    first_revision = created["latest_revision_id"]

    # In place: display_name and build_on_push, no revision.
    renamed = provider.update_in_place(
        deployment_id, {"display_name": "Support", "source_config": {"build_on_push": False}}
    )
    assert renamed["display_name"] == "Support"
    assert renamed["source_config"]["build_on_push"] is False
    assert renamed["latest_revision_id"] == first_revision

    # A new revision by POST, resource_spec merged with what the service holds.
    revision, after = provider.update_with_revision(
        deployment_id,
        {
            "source_revision_config": {"repo_ref": "release-2", "agent_config_path": "agent.json"},
            "secrets": [{"name": "LOG_LEVEL", "value": "debug"}],
        },
        {"max_scale": 4},
    )
    assert revision["status"] == "DEPLOYED"
    assert after["latest_revision_id"] == revision["id"] == after["active_revision_id"]
    assert after["source_config"]["resource_spec"] == {"min_scale": 1, "max_scale": 4}
    assert after["source_revision_config"]["repo_ref"] == "release-2"
    assert after["display_name"] == "Support"  # in-place fields survive a revision

    # The revisions data source: status filter, limit, offset.
    listed = provider.ok(
        "GET",
        f"/v2/deployments/{deployment_id}/revisions",
        params={"status": "DEPLOYED,SKIPPED", "limit": 1},
    )
    assert [r["id"] for r in listed["resources"]] == [revision["id"]]
    assert listed["offset"] == 1
    rest = provider.ok(
        "GET",
        f"/v2/deployments/{deployment_id}/revisions",
        params={"status": "DEPLOYED,SKIPPED", "limit": 1, "offset": 1},
    )
    assert [r["id"] for r in rest["resources"]] == [first_revision]

    # Import by id: what the service reports is the configuration, so the next plan is empty.
    imported = provider.import_by_id(deployment_id)
    assert imported == {
        "name": "support-agent",
        "source": "git_host",
        "display_name": "Support",
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/support-agent",
            "deployment_type": "prod",
            "build_on_push": False,
        },
        "source_revision_config": {"repo_ref": "release-2", "agent_config_path": "agent.json"},
    }

    # Destroy, waiting for the 404; a second destroy finds it gone.
    seen = provider.destroy(deployment_id)
    assert seen and set(seen) <= {"AWAITING_DELETE", "AWAITING_FINAL_DELETE"}
    assert provider.destroy(deployment_id) == []
    assert ("DELETE", f"/v2/deployments/{deployment_id}") in provider.sent


def test_omitted_service_defaults_are_read_back(provider: Provider) -> None:
    """A config without deployment_type or build_on_push adopts the service's defaults
    (prod, false): Optional+Computed attributes read as values, not as unknown."""
    config = {
        **CONFIG,
        "name": "defaults",
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/support-agent",
        },
    }
    del config["display_name"]
    created = provider.create(config)
    assert created["source_config"]["deployment_type"] == "prod"
    assert created["source_config"]["build_on_push"] is False
    assert created["display_name"] is None


def test_an_empty_display_name_is_refused(provider: Provider) -> None:
    """The service's schema says min length 1: "" is a 422, the stored name stays."""
    created = provider.create({**CONFIG, "name": "named"})
    response = provider.call("PATCH", f"/v2/deployments/{created['id']}", {"display_name": ""})
    assert response.status_code == 422
    assert provider.read(created["id"])["display_name"] == "Support Agent"


def test_self_hosted_external_docker_under_api_host(tmp_path: Path) -> None:
    """Self-hosted: `api_url = "<host>/api-host"`; an external_docker deployment with a
    listener and secret references goes through create, a revision and destroy."""
    with served(settings(tmp_path, Mode.SELF_HOSTED)) as url:
        replay = Provider(url + SELF_HOSTED_PREFIX)
        try:
            config = {
                "name": "ops-agent",
                "display_name": "Ops",
                "source": "external_docker",
                "source_config": {
                    "listener_id": LISTENER,
                    "listener_config": {"k8s_namespace": "agents"},
                    "custom_url": "https://ops.example.com",
                },
                "source_revision_config": {"image_uri": "registry.example.com/ops:1"},
                "secrets": [],
                "secret_references": [
                    {"name": "TOKEN", "secret_name": "ops", "secret_key": "token"}
                ],
            }
            created = replay.create(config)
            assert created["display_name"] == "Ops"
            revision, after = replay.update_with_revision(
                created["id"],
                {
                    "source_revision_config": {"image_uri": "registry.example.com/ops:2"},
                    "secret_references": [],
                },
                {"cpu": 1},
            )
            assert revision["status"] == "DEPLOYED"
            assert after["secret_references"] == []
            assert after["source_revision_config"]["image_uri"] == "registry.example.com/ops:2"
            assert replay.destroy(created["id"])
            assert all(path.startswith("/v2/") for _, path in replay.sent)
            assert str(replay.http.base_url).rstrip("/").endswith(SELF_HOSTED_PREFIX)
        finally:
            replay.http.close()
