"""Fixtures for the API client tests: scripted transports, a fake clock, a local plane."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.retry import RetryPolicy
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.api.api_fakes import SECRET_KEY, TENANT, FakeTime, Handler
from tests.loopback import served


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def make_client(fake_time: FakeTime) -> Callable[..., ControlPlaneClient]:
    """`make_client(handler, base_url=..., **policy)`: a client on a MockTransport."""

    def make(
        handler: Handler, base_url: str = "https://cp.example.com", **policy: Any
    ) -> ControlPlaneClient:
        retry = RetryPolicy(
            sleep=fake_time.sleep, clock=fake_time.clock, random=lambda: 0.5, **policy
        )
        return ControlPlaneClient(
            base_url,
            SECRET_KEY,
            TENANT,
            transport=httpx2.MockTransport(handler),
            retry=retry,
        )

    return make


@pytest.fixture
def local_settings(tmp_path: Path) -> ServerSettings:
    """A local control plane over a fresh db with fractional-second revision timings."""
    return ServerSettings(
        db_path=tmp_path / "cp.db", build_seconds=0.2, deploy_seconds=0.2, delete_seconds=0.2
    )


@pytest.fixture
async def local_client(local_settings: ServerSettings) -> AsyncIterator[ControlPlaneClient]:
    """A client on the real local control plane, in-process (ASGI)."""
    app = create_app(local_settings)
    client = ControlPlaneClient(
        "http://local.test",
        EMBEDDED_API_KEY,
        DEFAULT_TENANT_ID,
        transport=httpx2.ASGITransport(app=app),
        on_close=app.state.store.close,
    )
    async with client:
        yield client


@pytest.fixture
def loopback_url(local_settings: ServerSettings) -> Iterator[str]:
    """The local control plane served by uvicorn on a free 127.0.0.1 port, in a thread."""
    with served(local_settings) as url:
        yield url
