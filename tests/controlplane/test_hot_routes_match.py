"""The fast path of `controlplane/hot_routes.py` answers exactly as the FastAPI routes do:
any sequence of creates and list pages (well formed or not, from any caller) gets the
same statuses, headers and bytes from a plane whose hot routes are on as from one whose
requests all go through FastAPI, but for the random uuids the server makes up."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx2
import pytest
from hypothesis import given, settings
from starlette.types import ASGIApp, Receive, Scope, Send

from planner.api.vocabulary import Dialect
from planner.controlplane.app import create_app
from planner.controlplane.hot_routes import HotRoutes
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.controlplane.core_fixtures import FakeClock, git_host_body
from tests.strategies import hot_requests

OTHER_TENANT = "9a0e7c55-0000-4000-8000-0000000000ff"
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
Answer = tuple[int, list[tuple[str, str]], bytes]


class Counting:
    """An ASGI app, counting the requests it is given."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.count = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.count += 1
        await self.app(scope, receive, send)


class Plane:
    """One control plane over its own file; HOT: its hot routes answer what they can,
    else every request goes through FastAPI's routes."""

    def __init__(self, db: Path, dialect: Dialect, *, hot: bool) -> None:
        self.clock = FakeClock()
        settings = ServerSettings(db_path=db, dialect=dialect, clock=self.clock)
        self.app = create_app(settings)
        self.arrivals, self.passes = self._wire(hot)
        self.created: list[str] = []
        self.uuids: dict[bytes, int] = {}  # each uuid seen -> its place of first sight

    def _wire(self, hot: bool) -> tuple[Counting, Counting]:
        """Build the middleware stack, counting the requests that reach the hot routes
        and those they pass on; cut the hot routes out of it unless HOT."""
        stack = self.app.middleware_stack = self.app.build_middleware_stack()
        above: Any = None
        node: Any = stack
        while not isinstance(node, HotRoutes):
            above, node = node, node.app  # each middleware holds the app below as `app`
        passes = node.app = Counting(node.app)
        arrivals = above.app = Counting(node if hot else passes)
        return arrivals, passes

    async def send(self, request: dict[str, Any]) -> Answer:
        self.clock.advance(0.001 + request["advance"])  # no two rows share a created_at
        transport = httpx2.ASGITransport(app=self.app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://cp.test") as client:
            headers = caller_headers(request)
            if request["kind"] == "create":
                headers["content-type"] = request["content_type"]
                content = create_body(request)
                response = await client.post("/v2/deployments", content=content, headers=headers)
                if response.status_code == 201:
                    self.created.append(response.json()["id"])
            else:
                url = f"/v2/deployments?{page_query(request, self.created)}"
                response = await client.get(url, headers=headers)
        return response.status_code, list(response.headers.multi_items()), self.masked(response)

    def masked(self, response: httpx2.Response) -> bytes:
        """The body, each uuid written as the order in which this plane first showed it."""

        def place(found: re.Match[bytes]) -> bytes:
            return b"<uuid %06d>" % self.uuids.setdefault(found[0], len(self.uuids))

        return UUID.sub(place, response.content)


def caller_headers(request: dict[str, Any]) -> dict[str, str]:
    caller, tenant = request["caller"], request["tenant"]
    headers = {
        "known": {"X-Api-Key": EMBEDDED_API_KEY},
        "wrong": {"X-Api-Key": "wrong"},
        "bearer": {"Authorization": f"Bearer {EMBEDDED_API_KEY}"},
    }[caller]
    if tenant is not None:
        headers["X-Tenant-Id"] = {"default": DEFAULT_TENANT_ID, "other": OTHER_TENANT}.get(
            tenant, tenant
        )
    return headers


def create_body(request: dict[str, Any]) -> bytes:
    """A git_host create named as drawn, then edited as drawn."""
    edit = request["edit"]
    if edit == "bad_json":
        return b'{"name": '
    body = git_host_body(request["name"])
    if edit == "no_name":
        del body["name"]
    elif edit == "external_docker":  # a source the cloud mode does not offer
        body["source"] = "external_docker"
    elif edit == "bad_secret":
        body["secrets"] = [{"name": "1-not-a-variable", "value": "x"}]
    elif edit == "display_name":
        body["display_name"] = f"Agent {request['name']}"
    elif edit == "bad_cpu":
        body["source_config"]["resource_spec"] = {"cpu": -1}
    return json.dumps(body).encode()


def page_query(request: dict[str, Any], created: list[str]) -> str:
    pairs = [(k, request[k]) for k in ("limit", "offset") if request[k] is not None]
    if request["ids"] is not None:
        ids = [pick(created, i) if isinstance(i, int) else i for i in request["ids"]]
        pairs.append(("deployment_ids", ",".join(ids)))
    query = urlencode(pairs)
    return "&".join(part for part in (query, request["extra"]) if part)


def pick(created: list[str], index: int) -> str:
    """The INDEXth deployment this plane created (modulo), or an unknown uuid."""
    return created[index % len(created)] if created else OTHER_TENANT


async def answers(planes: list[Plane], requests: list[dict[str, Any]]) -> list[list[Answer]]:
    """Each plane's answers to REQUESTS, sent in turn to every plane."""
    found: list[list[Answer]] = [[] for _ in planes]
    for request in requests:
        for plane, seen in zip(planes, found, strict=True):
            seen.append(await plane.send(request))
    return found


@pytest.mark.parametrize("dialect", list(Dialect))
def test_the_hot_routes_answer_as_the_fastapi_routes(dialect: Dialect) -> None:
    """Any creates and pages get FastAPI's statuses, headers and bytes from the hot routes."""
    handled = 0

    @settings(max_examples=25)
    @given(requests=hot_requests)
    def same_answers(requests: list[dict[str, Any]]) -> None:
        nonlocal handled
        with tempfile.TemporaryDirectory() as folder:
            hot = Plane(Path(folder) / "hot.db", dialect, hot=True)
            full = Plane(Path(folder) / "full.db", dialect, hot=False)
            try:
                by_hot, by_full = asyncio.run(answers([hot, full], requests))
            finally:
                hot.app.state.store.close()
                full.app.state.store.close()
            assert by_hot == by_full
            assert full.arrivals.count == full.passes.count  # the full plane: FastAPI only
            handled += hot.arrivals.count - hot.passes.count

    same_answers()
    assert handled > 0  # the hot routes did answer some: the property is not vacuous
