"""Helpers for the control plane core tests: a fake clock, an in-process app, bodies.

Plain helpers rather than pytest fixtures (tests/controlplane/conftest.py belongs to the
auth/edges tests); each test opens `control_plane(tmp_path)` itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from planner.api.rules import Mode
from planner.api.vocabulary import Dialect
from planner.controlplane.app import create_app
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from planner.controlplane.store import Store

INTEGRATION_ID = "9a0e7c55-0000-4000-8000-00000000a001"
HEADERS = {"X-Api-Key": EMBEDDED_API_KEY}


class FakeClock:
    """Epoch seconds that only move when a test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Plane:
    client: httpx2.AsyncClient
    clock: FakeClock
    settings: ServerSettings
    store: Store

    async def create(self, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.post("/v2/deployments", json=body)
        assert response.status_code == 201, response.text
        return dict(response.json())

    async def get(self, deployment_id: str) -> dict[str, Any]:
        response = await self.client.get(f"/v2/deployments/{deployment_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def patch(self, deployment_id: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.patch(f"/v2/deployments/{deployment_id}", json=body)
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def revisions(self, deployment_id: str) -> list[dict[str, Any]]:
        response = await self.client.get(
            f"/v2/deployments/{deployment_id}/revisions", params={"limit": 100}
        )
        assert response.status_code == 200, response.text
        return list(response.json()["resources"])

    async def revision_status(self, deployment_id: str, revision_id: str) -> str:
        response = await self.client.get(f"/v2/deployments/{deployment_id}/revisions/{revision_id}")
        assert response.status_code == 200, response.text
        return str(response.json()["status"])


@asynccontextmanager
async def control_plane(
    tmp_path: Path,
    *,
    build_seconds: float = 0.2,
    deploy_seconds: float = 0.2,
    delete_seconds: float = 0.1,
    mode: Mode = Mode.CLOUD,
    dialect: Dialect = Dialect.SEED,
    db_name: str = "cp.db",
) -> AsyncIterator[Plane]:
    """The real app in-process over a SQLite file (fresh unless DB_NAME names one an
    earlier plane of the test used), driven by a fake clock, speaking DIALECT."""
    clock = FakeClock()
    settings = ServerSettings(
        db_path=tmp_path / db_name,
        build_seconds=build_seconds,
        deploy_seconds=deploy_seconds,
        delete_seconds=delete_seconds,
        mode=mode,
        dialect=dialect,
        clock=clock,
    )
    app = create_app(settings)
    transport = httpx2.ASGITransport(app=app)
    try:
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://cp.test", headers=HEADERS
        ) as client:
            yield Plane(client, clock, settings, app.state.store)
    finally:
        app.state.store.close()


def git_host_body(name: str = "support-agent", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "source": "git_host",
        "source_config": {
            "integration_id": INTEGRATION_ID,
            "repo_url": "https://git.example.com/acme/support-agent",
            "build_on_push": False,
        },
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
        "secrets": [{"name": "LOG_LEVEL", "value": "info"}],
    }
    body.update(overrides)
    return body


def external_docker_body(name: str = "docker-agent", **overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "source": "external_docker",
        "source_config": {"custom_url": "https://agent.example.com"},
        "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
        "secrets": [],
    }
    body.update(overrides)
    return body


def github_body(name: str = "support-agent", **overrides: Any) -> dict[str, Any]:
    """A git deployment's create body in the real service's words."""
    body: dict[str, Any] = {
        "name": name,
        "source": "github",
        "source_config": {
            "integration_id": INTEGRATION_ID,
            "repo_url": "https://git.example.com/acme/support-agent",
            "build_on_push": False,
            "resource_spec": {"cpu": 1, "redis_cpu": 0.5, "redis_memory_mb": 512},
        },
        "source_revision_config": {"repo_ref": "main", "langgraph_config_path": "agent.json"},
        "secrets": [{"name": "LOG_LEVEL", "value": "info"}],
    }
    body.update(overrides)
    return body
