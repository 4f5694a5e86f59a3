"""Helpers of the API client tests: scripted MockTransport handlers, a fake clock."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

SECRET_KEY = "sk-test-7f3a9c-do-not-print"
TENANT = "6f1c2c1e-0000-4000-8000-000000000001"
Handler = Callable[[httpx2.Request], httpx2.Response]


def deployment_json(deployment_id: str, name: str = "", status: str = "READY") -> dict[str, Any]:
    """A minimal Deployment as the server sends it."""
    return {
        "id": deployment_id,
        "tenant_id": TENANT,
        "name": name or f"dep-{deployment_id[:8]}",
        "source": "git_host",
        "source_config": {},
        "source_revision_config": {},
        "secrets": [],
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        "status": status,
    }


def page(resources: list[dict[str, Any]], offset: int) -> httpx2.Response:
    return httpx2.Response(200, json={"resources": resources, "offset": offset})


@dataclass
class FakeTime:
    """A clock that only the injected sleep advances; records every sleep."""

    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now


@dataclass
class Scripted:
    """A MockTransport handler that records requests and delegates to `handler`."""

    handler: Handler
    requests: list[httpx2.Request] = field(default_factory=list)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        return self.handler(request)

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]
