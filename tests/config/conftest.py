"""Fixtures for config tests: write a config into a temp folder and load it from there."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from planner.config import Config, load_config
from planner.errors import ConfigError

# A minimal valid deployment to build on: `[deployments.api]` from a prebuilt image.
DOCKER_API = """
[deployments.api]
source = "internal_docker"
source_revision_config = { image_uri = "registry.example.com/api:1" }
"""

GIT_API = """
[deployments.api]
source = "git_host"

[deployments.api.source_config]
integration_id = "9a0e7c55-0000-4000-8000-00000000a001"
repo_url = "https://git.example.com/acme/api"

[deployments.api.source_revision_config]
repo_ref = "main"
agent_config_path = "agent.json"
"""


@pytest.fixture
def docker_api() -> str:
    return DOCKER_API


@pytest.fixture
def git_api() -> str:
    return GIT_API


Loader = Callable[..., Config]
ProblemsOf = Callable[..., list[str]]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in a temp folder so problems name the file as `planner.toml`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def write_config(in_tmp: Path) -> Callable[..., Path]:
    def write(text: str, name: str = "planner.toml") -> Path:
        (in_tmp / name).write_text(textwrap.dedent(text), encoding="utf-8")
        return Path(name)

    return write


@pytest.fixture
def load(write_config: Callable[..., Path]) -> Loader:
    def load_text(
        text: str,
        *,
        environ: Mapping[str, str] | None = None,
        name: str = "planner.toml",
        mode: str | None = None,
    ) -> Config:
        return load_config(write_config(text, name), environ=environ or {}, mode=mode)

    return load_text


@pytest.fixture
def problems_of(load: Loader) -> ProblemsOf:
    """The detail lines of the ConfigError a config raises (fails if it loads)."""

    def problems(text: str, **kwargs: object) -> list[str]:
        with pytest.raises(ConfigError) as caught:
            load(text, **kwargs)
        return caught.value.details

    return problems
