"""Fixtures for the apply engine: a local control plane in-process with tiny timings, a
workspace (config + client + state) around it, and helpers to plan and apply."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.apply import ApplyOptions, ApplyResult, PollPolicy, execute_plan
from planner.apply.reporter import NullReporter, Reporter
from planner.cli.workspace import Workspace
from planner.config import load_config
from planner.controlplane.app import create_app
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from planner.plan.diff import PlanOptions
from planner.plan.model import Plan
from planner.state import InMemoryBackend, StateDocument
from planner.state.oplog import Group

FAST_POLL = PollPolicy(initial=0.02, maximum=0.1, jitter=0.0)
FAST = ApplyOptions(poll=FAST_POLL, wait_timeout=20.0, interrupt_grace=5.0)


def docker(name: str, image: str = "registry.example.com/app:1", extra: str = "") -> str:
    """A TOML deployment table of source internal_docker (no build: quickest lifecycle)."""
    return (
        f'[deployments.{name}]\nsource = "internal_docker"\n{extra}'
        f'[deployments.{name}.source_revision_config]\nimage_uri = "{image}"\n'
    )


def git(name: str, *, ref: str = "main", build_on_push: bool = False) -> str:
    """A TOML deployment table of source git_host (build, then deploy)."""
    return (
        f'[deployments.{name}]\nsource = "git_host"\n'
        f"[deployments.{name}.source_config]\n"
        'integration_id = "9a0e7c55-0000-4000-8000-00000000a001"\n'
        f'repo_url = "https://git.example.com/acme/{name}"\n'
        f"build_on_push = {str(build_on_push).lower()}\n"
        f"[deployments.{name}.source_revision_config]\n"
        f'repo_ref = "{ref}"\nagent_config_path = "agent.json"\n'
    )


class RecordingBackend(InMemoryBackend):
    """An in-memory state that keeps every document written, in order (after an append
    to the operation log: the state as a reader then sees it)."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[StateDocument] = []

    def write(self, doc: StateDocument, *, force: bool = False) -> StateDocument:
        written = super().write(doc, force=force)
        self.written.append(written)
        return written

    def append(self, group: Group) -> None:
        super().append(group)
        stored = self.read()
        assert stored is not None
        self.written.append(stored)


@dataclass
class Harness:
    """A config file, a workspace on the in-process plane, and the state in memory."""

    tmp_path: Path
    client: ControlPlaneClient
    backend: RecordingBackend = field(default_factory=RecordingBackend)
    environ: dict[str, str] = field(default_factory=dict)
    ws: Workspace | None = None

    def configure(self, *tables: str) -> Workspace:
        path = self.tmp_path / "planner.toml"
        path.write_text("\n".join(tables), encoding="utf-8")
        config = load_config(path, environ=self.environ)
        self.ws = Workspace(
            config,
            self.client,
            self.backend,
            "embedded:test",
            DEFAULT_TENANT_ID,
            EMBEDDED_API_KEY,
        )
        return self.ws

    def state(self) -> StateDocument:
        assert self.ws is not None
        return self.ws.read_state()

    async def plan(self, **options: Any) -> tuple[Plan, StateDocument]:
        assert self.ws is not None
        doc = self.state()
        plan, _ = await self.ws.make_plan(PlanOptions(**options), doc)
        return plan, doc

    async def apply(
        self,
        *,
        options: ApplyOptions = FAST,
        reporter: Reporter | None = None,
        **plan_options: Any,
    ) -> ApplyResult:
        """Plan and execute (what `planner apply --auto-approve` does)."""
        plan, doc = await self.plan(**plan_options)
        return await self.execute(plan, doc, options=options, reporter=reporter)

    async def execute(
        self,
        plan: Plan,
        doc: StateDocument,
        *,
        options: ApplyOptions = FAST,
        reporter: Reporter | None = None,
        stop: asyncio.Event | None = None,
    ) -> ApplyResult:
        """Execute PLAN against the harness's plane, state and current config."""
        assert self.ws is not None
        return await execute_plan(
            plan,
            client=self.client,
            backend=self.backend,
            doc=doc,
            desired=self.ws.config.deployments,
            digest_key=self.ws.digest_key(doc),
            options=options,
            reporter=reporter or NullReporter(),
            stop=stop,
        )

    async def names_on_server(self) -> list[str]:
        return sorted([d.name async for d in self.client.iter_deployments()])


@pytest.fixture
def plane_settings(tmp_path: Path, request: pytest.FixtureRequest) -> ServerSettings:
    """Tiny timings; parametrize indirectly with a number to change the delete time."""
    delete_seconds = float(getattr(request, "param", 0.1))
    return ServerSettings(
        db_path=tmp_path / "cp.db",
        build_seconds=0.1,
        deploy_seconds=0.1,
        delete_seconds=delete_seconds,
    )


@pytest.fixture
async def plane_client(plane_settings: ServerSettings) -> AsyncIterator[ControlPlaneClient]:
    app = create_app(plane_settings)
    client = ControlPlaneClient(
        "http://local.test",
        EMBEDDED_API_KEY,
        DEFAULT_TENANT_ID,
        transport=httpx2.ASGITransport(app=app),
        endpoint="embedded:test",
        on_close=app.state.store.close,
    )
    async with client:
        yield client


@pytest.fixture
def harness(tmp_path: Path, plane_client: ControlPlaneClient) -> Harness:
    return Harness(tmp_path, plane_client)


MakeHarness = Callable[..., Harness]
