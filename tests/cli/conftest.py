"""Fixtures for CLI scenario tests: a working dir, a config written inline, the embedded
control plane (in-process, tiny timings) and a way to change it "outside the planner"."""

from __future__ import annotations

import asyncio
import os
import textwrap
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, DeploymentCreate, DeploymentPatch
from planner.cli.endpoint import EMBEDDED_DB_NAME, embedded_client, embedded_timings
from planner.cli.main import main
from planner.config import load_config
from planner.controlplane.settings import DEFAULT_TENANT_ID, ServerSettings
from planner.plan.body import create_request_body
from planner.state import LocalFileBackend, StateDocument
from tests.loopback import served

T = TypeVar("T")

FAST_TIMINGS = {
    "PLANNER_EMBEDDED_BUILD_SECONDS": "0.05",
    "PLANNER_EMBEDDED_DEPLOY_SECONDS": "0.05",
    "PLANNER_EMBEDDED_DELETE_SECONDS": "0.05",
}
SECRET_VALUE = "sk-live-0123456789-do-not-print"

BASE_CONFIG = """
[defaults.source_config.resource_spec]
cpu = 0.5
memory_mb = 512

[deployments.api]
source = "git_host"

[deployments.api.source_config]
integration_id = "9a0e7c55-0000-4000-8000-00000000a001"
repo_url = "https://git.example.com/acme/api"
build_on_push = false

[deployments.api.source_config.resource_spec]
max_scale = 2

[deployments.api.source_revision_config]
repo_ref = "main"
agent_config_path = "agent.json"

[deployments.api.secrets]
API_TOKEN = { env = "API_TOKEN" }

[deployments.worker]
source = "internal_docker"

[deployments.worker.source_revision_config]
image_uri = "registry.example.com/acme/worker:1.0.0"
"""


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class Scenario:
    """One working directory with a config, its state and the embedded control plane."""

    root: Path
    capsys: pytest.CaptureFixture[str]
    config_path: Path

    @property
    def state_path(self) -> Path:
        return self.root / "state" / f"{self.config_path.stem}.state.json"

    @property
    def db_path(self) -> Path:
        return self.root / "state" / EMBEDDED_DB_NAME

    def write_config(self, text: str) -> Path:
        self.config_path.write_text(textwrap.dedent(text), encoding="utf-8")
        return self.config_path

    def edit_config(self, old: str, new: str) -> None:
        text = self.config_path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in the config"
        self.config_path.write_text(text.replace(old, new, 1), encoding="utf-8")

    def cli(self, *argv: str) -> Result:
        """Run `planner ARGV...` in-process; stdout/stderr captured apart."""
        self.capsys.readouterr()
        code = main(list(argv))
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def plan(self, *argv: str) -> Result:
        return self.cli("plan", *argv)

    def state(self) -> StateDocument | None:
        return LocalFileBackend(self.state_path).read()

    def remote(self, action: Callable[[ControlPlaneClient], Awaitable[T]]) -> T:
        """Run ACTION with a client on the same control plane (an outside change)."""

        async def go() -> T:
            timings = embedded_timings(os.environ)  # as fast as the CLI's, in this test
            async with embedded_client(self.db_path, DEFAULT_TENANT_ID, timings=timings) as client:
                return await action(client)

        return asyncio.run(go())

    def create_remote(self, name: str, **overrides: Any) -> Deployment:
        """Create NAME remotely as the config declares it (OVERRIDES merged over it)."""
        config = load_config(self.config_path, environ={"API_TOKEN": SECRET_VALUE})
        desired = config.deployments[name]
        body = merged(create_request_body(desired), overrides)
        body.setdefault(
            "secrets", [{"name": k, "value": v} for k, v in desired.secret_values().items()]
        )
        create = DeploymentCreate.model_validate(body)
        return self.remote(lambda client: client.create_deployment(create))

    def adopt(self, name: str) -> Deployment:
        """Create NAME remotely as configured, let its first revision finish (a managed
        deployment at rest), and `planner import` it."""
        deployment = self.create_remote(name)
        self.wait_until_deployed(deployment.id)
        result = self.cli("import", name, deployment.id)
        assert result.code == 0, result.err
        return deployment

    def wait_until_deployed(self, deployment_id: str) -> Deployment:
        """The deployment once its latest revision is its active one (fast timings)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            live = self.get(deployment_id)
            if live.latest_revision_id == live.active_revision_id:
                return live
            time.sleep(0.02)
        raise AssertionError(f"deployment {deployment_id} still rolling out after 30 s")

    def get(self, deployment_id: str) -> Deployment:
        return self.remote(lambda client: client.get_deployment(deployment_id))

    def patch(self, deployment_id: str, body: dict[str, Any]) -> Deployment:
        patch = DeploymentPatch.model_validate(body)
        return self.remote(lambda client: client.patch_deployment(deployment_id, patch))

    def delete(self, deployment_id: str) -> None:
        self.remote(lambda client: client.delete_deployments([deployment_id]))


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """BASE with OVERRIDES laid over it, nested objects merged key by key."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


@pytest.fixture
def scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Scenario:
    """A fresh working dir (cwd) with BASE_CONFIG as planner.toml and fast timings."""
    monkeypatch.chdir(tmp_path)
    for variable in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID", "NO_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("PLANNER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("API_TOKEN", SECRET_VALUE)
    for variable, value in FAST_TIMINGS.items():
        monkeypatch.setenv(variable, value)
    scene = Scenario(tmp_path, capsys, tmp_path / "planner.toml")
    scene.write_config(BASE_CONFIG)
    return scene


@pytest.fixture
def loopback_url(tmp_path: Path) -> Iterator[str]:
    """A local control plane served over real loopback HTTP (uvicorn in a thread)."""
    settings = ServerSettings(
        db_path=tmp_path / "served.db", build_seconds=0.05, deploy_seconds=0.05
    )
    with served(settings) as url:
        yield url


@pytest.fixture
def embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No URL configured, a fresh state dir: commands use the embedded plane."""
    for name in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLANNER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path
