"""Environments end to end: `planner serve` with one API key per workspace, the CLI as a
subprocess per environment, as a CI job per environment would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controlplane.conftest import ServeProcess, start_serve

pytestmark = pytest.mark.slow

TENANTS = {
    "dev": "11111111-1111-4111-8111-111111111111",
    "prod": "33333333-3333-4333-8333-333333333333",
}
CONFIG = f"""
[variables.tag]
default = "1.0.0"

[templates.docker]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/agent:${{var.tag}}"

[deployments.support]
template = "docker"

[deployments.canary]
template = "docker"
environments = ["dev"]

[environments.dev]
control_plane = {{ tenant_id = "{TENANTS["dev"]}" }}
variables = {{ tag = "2.0.0" }}

[environments.prod]
control_plane = {{ tenant_id = "{TENANTS["prod"]}" }}
"""


@pytest.fixture
def two_workspaces(tmp_path: Path) -> Iterator[ServeProcess]:
    keys = [arg for env, tenant in TENANTS.items() for arg in ("--api-key", f"k{env}:{tenant}")]
    timings = ["--build-seconds", "0.1", "--deploy-seconds", "0.1"]
    served = start_serve(["--db", str(tmp_path / "serve.db"), *timings, *keys], cwd=tmp_path)
    yield served
    served.stop()
    served.process.communicate(timeout=10)


def planner_in_env(root: Path, url: str, env: str, *argv: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    environ |= {"PLANNER_BASE_URL": url, "PLANNER_API_KEY": f"k{env}", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "planner", *argv, "--env", env],
        cwd=root,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_each_environment_plans_and_applies_in_its_own_workspace(
    tmp_path: Path, two_workspaces: ServeProcess
) -> None:
    """apply --env dev / prod with each one's key: each workspace holds its deployments with
    its values, each state is its own, and both next plans are empty."""
    (tmp_path / "planner.toml").write_text(CONFIG, encoding="utf-8")
    for env in TENANTS:
        plan = planner_in_env(tmp_path, two_workspaces.url, env, "plan", "--format", "json")
        assert plan.returncode == 0, plan.stderr
        assert json.loads(plan.stdout)["environment"] == env
        applied = planner_in_env(tmp_path, two_workspaces.url, env, "apply", "--auto-approve")
        assert applied.returncode == 0, applied.stdout + applied.stderr
    for env, expected in (("dev", ["canary", "support"]), ("prod", ["support"])):
        state = json.loads((tmp_path / "state" / f"planner.{env}.state.json").read_text())
        assert state["tenant_id"] == TENANTS[env]
        assert sorted(state["deployments"]) == expected
        shown = planner_in_env(tmp_path, two_workspaces.url, env, "state", "list")
        assert shown.returncode == 0 and all(name in shown.stdout for name in expected)
        again = planner_in_env(tmp_path, two_workspaces.url, env, "plan", "--detailed-exitcode")
        assert again.returncode == 0, again.stdout + again.stderr
    config = planner_in_env(tmp_path, two_workspaces.url, "prod", "config", "--format", "json")
    image = json.loads(config.stdout)["deployments"]["support"]["source_revision_config"]
    assert image["image_uri"].endswith(":1.0.0")


def test_a_key_of_another_workspace_is_refused(
    tmp_path: Path, two_workspaces: ServeProcess
) -> None:
    """prod's config with dev's key: the server refuses the workspace; nothing is created."""
    (tmp_path / "planner.toml").write_text(CONFIG, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "planner", "plan", "--env", "prod"],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")},
            "PLANNER_BASE_URL": two_workspaces.url,
            "PLANNER_API_KEY": "kdev",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert f"403 The API key has no access to workspace {TENANTS['prod']}" in result.stderr
