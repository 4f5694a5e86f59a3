"""The client's retries against the real local control plane's injected faults (503s, 429s)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI

from planner.api.client import ControlPlaneClient
from planner.api.models import DeploymentCreate, SourceConfig, SourceRevisionConfig
from planner.api.retry import RetryPolicy
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.api.api_fakes import FakeTime

pytestmark = pytest.mark.anyio


class Recording(httpx2.AsyncBaseTransport):
    """Passes requests to the real app and notes each status it answered."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.statuses: list[int] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        self.statuses.append(response.status_code)
        return response


@pytest.fixture
async def faulty(
    tmp_path: Path, fake_time: FakeTime
) -> AsyncIterator[Callable[..., tuple[ControlPlaneClient, Recording]]]:
    """`faulty(**settings)`: a client (fake sleep and clock) on a plane with those faults."""
    apps: list[FastAPI] = []

    def make(**faults: Any) -> tuple[ControlPlaneClient, Recording]:
        settings = ServerSettings(
            db_path=tmp_path / f"faults-{len(apps)}.db", clock=fake_time.clock, **faults
        )
        app = create_app(settings)
        apps.append(app)
        recording = Recording(httpx2.ASGITransport(app=app))
        policy = RetryPolicy(
            max_attempts=10, sleep=fake_time.sleep, clock=fake_time.clock, random=lambda: 0.5
        )
        client = ControlPlaneClient(
            "http://faulty.test",
            EMBEDDED_API_KEY,
            DEFAULT_TENANT_ID,
            transport=recording,
            retry=policy,
        )
        return client, recording

    yield make
    for app in apps:
        app.state.store.close()


async def test_random_503s_are_retried_through(faulty):
    """With a third of the requests failing, every read still succeeds after retries."""
    client, recording = faulty(error_rate=0.35, random_seed=7)
    async with client:
        for _ in range(15):
            assert await client.list_providers()
    assert 503 in recording.statuses
    assert recording.statuses.count(200) == 15


async def test_creates_under_503s_make_no_duplicates(faulty):
    """Creates that meet 503s are looked up and re-posted: each name exists exactly once."""
    client, recording = faulty(error_rate=0.35, random_seed=3)
    async with client:
        integration = (await client.list_integrations())[0]
        names = [f"svc-{i}" for i in range(8)]
        for name in names:
            await client.create_deployment(
                DeploymentCreate(
                    name=name,
                    source="git_host",
                    source_config=SourceConfig(
                        integration_id=integration.id, repo_url=f"https://git.example/{name}"
                    ),
                    source_revision_config=SourceRevisionConfig(
                        repo_ref="main", agent_config_path="agent.json"
                    ),
                )
            )
        listed = [d.name async for d in client.iter_deployments(name_contains="svc-")]
    assert sorted(listed) == names
    assert 503 in recording.statuses


async def test_rate_limit_waits_the_retry_after(faulty, fake_time: FakeTime):
    """A 429 from the rate limiter is waited out for its Retry-After, then succeeds."""
    client, recording = faulty(rate_limit=2)
    async with client:
        for _ in range(3):
            await client.list_providers()
    assert recording.statuses == [200, 200, 429, 200]
    assert len(fake_time.sleeps) == 1 and fake_time.sleeps[0] >= 1.0
