"""Injected faults: latency, seeded 503s and the per-key rate limit."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send

from planner.controlplane.faults import FaultMiddleware, RateLimiter
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from tests.controlplane.conftest import FakeClock

KEY = {"X-Api-Key": EMBEDDED_API_KEY}
PROVIDERS = "/v2/auth/providers"

MakeClient = Callable[[ServerSettings], TestClient]


class RecordingApp:
    """A stand-in ASGI app that answers 204 and counts how often it was reached."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.calls += 1
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@pytest.mark.anyio
async def test_latency_sleeps_before_handling(tmp_path: Path) -> None:
    """latency_ms sleeps that long (in seconds) before the request reaches the app."""
    slept: list[float] = []

    async def record_sleep(seconds: float) -> None:
        slept.append(seconds)

    inner = RecordingApp()
    settings = ServerSettings(db_path=tmp_path / "x.db", latency_ms=250)
    app = FaultMiddleware(inner, settings, sleep=record_sleep)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://t"
    ) as c:
        response = await c.get("/anything")
    assert response.status_code == 204
    assert slept == [0.25]
    assert inner.calls == 1


def test_latency_still_serves_requests(tmp_path: Path, make_client: MakeClient) -> None:
    """With latency on, requests succeed, and the injected latency is counted in metrics."""
    client = make_client(ServerSettings(db_path=tmp_path / "x.db", latency_ms=5))
    assert client.get(PROVIDERS, headers=KEY).status_code == 200
    assert 'controlplane_faults_injected_total{kind="latency"} 1' in client.get("/metrics").text


def test_error_rate_follows_the_seeded_stream(tmp_path: Path, make_client: MakeClient) -> None:
    """With rate 0.5 and seed S, request i gets 503 exactly when Random(S)'s i-th draw < 0.5."""
    seed = 20261122
    settings = ServerSettings(db_path=tmp_path / "x.db", error_rate=0.5, random_seed=seed)
    client = make_client(settings)
    statuses = [client.get(PROVIDERS, headers=KEY).status_code for _ in range(40)]
    stream = random.Random(seed)
    expected = [503 if stream.random() < 0.5 else 200 for _ in range(40)]
    assert statuses == expected
    assert 0 < statuses.count(503) < 40


def test_injected_503_has_a_detail_body(tmp_path: Path, make_client: MakeClient) -> None:
    """An injected 503 answers `{detail}` in JSON."""
    client = make_client(ServerSettings(db_path=tmp_path / "x.db", error_rate=1.0))
    response = client.get(PROVIDERS, headers=KEY)
    assert response.status_code == 503
    assert response.json() == {"detail": "Service unavailable (injected fault)."}


@pytest.mark.anyio
async def test_faulted_request_never_reaches_the_handler(tmp_path: Path) -> None:
    """A 503 or 429 is sent before routing, so no handler (and no write) runs."""
    inner = RecordingApp()
    settings = ServerSettings(db_path=tmp_path / "x.db", error_rate=1.0)
    app = FaultMiddleware(inner, settings)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://t"
    ) as c:
        response = await c.post("/v2/deployments", json={"name": "x"})
    assert response.status_code == 503
    assert inner.calls == 0


def test_metrics_are_exempt_from_faults(tmp_path: Path, make_client: MakeClient) -> None:
    """GET /metrics is served even when every other request fails or is limited."""
    settings = ServerSettings(db_path=tmp_path / "x.db", error_rate=1.0, rate_limit=1)
    client = make_client(settings)
    assert [client.get("/metrics").status_code for _ in range(3)] == [200, 200, 200]


def test_rate_limit_429_then_recovery(
    tmp_path: Path, make_client: MakeClient, fake_clock: FakeClock
) -> None:
    """Past N requests in one second a key gets 429 + Retry-After; the next second it is served."""
    settings = ServerSettings(db_path=tmp_path / "x.db", rate_limit=2, clock=fake_clock)
    client = make_client(settings)
    statuses = [client.get(PROVIDERS, headers=KEY).status_code for _ in range(2)]
    limited = client.get(PROVIDERS, headers=KEY)
    assert statuses == [200, 200]
    assert limited.status_code == 429
    assert int(limited.headers["retry-after"]) >= 1
    assert "Rate limit exceeded" in limited.json()["detail"]
    fake_clock.advance(1.0)
    assert client.get(PROVIDERS, headers=KEY).status_code == 200


def test_rate_limit_is_per_key(
    tmp_path: Path, make_client: MakeClient, fake_clock: FakeClock
) -> None:
    """One key running out of its budget does not limit another key."""
    settings = ServerSettings(
        db_path=tmp_path / "x.db",
        rate_limit=1,
        clock=fake_clock,
        api_keys={
            "one": ["00000000-0000-4000-8000-000000000001"],
            "two": ["00000000-0000-4000-8000-000000000001"],
        },
    )
    client = make_client(settings)
    assert client.get(PROVIDERS, headers={"X-Api-Key": "one"}).status_code == 200
    assert client.get(PROVIDERS, headers={"X-Api-Key": "one"}).status_code == 429
    assert client.get(PROVIDERS, headers={"Authorization": "Bearer two"}).status_code == 200


def test_retry_after_counts_whole_seconds_to_the_next_window(fake_clock: FakeClock) -> None:
    """Retry-After is the whole seconds until the window ends, never less than 1."""
    fake_clock.now = 100.0
    limiter = RateLimiter(1, fake_clock)
    assert limiter.check("k") is None
    assert limiter.check("k") == 1
    fake_clock.now = 100.999
    assert limiter.check("k") == 1
    fake_clock.now = 101.0
    assert limiter.check("k") is None


def test_repeated_keys_cannot_bypass_the_rate_limit(
    tmp_path: Path, make_client: MakeClient, fake_clock: FakeClock
) -> None:
    """A fresh second X-Api-Key per request does not buy a fresh rate-limit budget."""
    settings = ServerSettings(db_path=tmp_path / "x.db", rate_limit=1, clock=fake_clock)
    client = make_client(settings)
    assert client.get(PROVIDERS, headers=KEY).status_code == 200
    for n in range(3):
        headers = [("X-Api-Key", EMBEDDED_API_KEY), ("X-Api-Key", f"decoy-{n}")]
        assert client.get(PROVIDERS, headers=headers).status_code in (400, 429)
