"""Fixtures for the real clients: the provider in a filesystem mirror, a Terraform working
directory with a clean environment, and `planner serve` as a process on loopback."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.clients.terraform import (
    Terraform,
    install_provider,
    is_foreign,
    require_provider,
    terraform_environment,
    write_cli_config,
)
from tests.controlplane.conftest import ServeProcess, start_serve

StartServer = Callable[..., ServeProcess]


@pytest.fixture(scope="session")
def provider_mirror(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A filesystem mirror holding the provider binary, unpacked once per test process."""
    packed = require_provider(os.environ)
    mirror = tmp_path_factory.mktemp("terraform-mirror")
    install_provider(packed, mirror)
    return mirror


@pytest.fixture
def terraform(provider_mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Terraform:
    """A working directory; this process's environment is what each command inherits, so
    it is cleared of variables that steer Terraform or the provider, then set for them."""
    for name in list(os.environ):
        if is_foreign(name):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    home.mkdir()
    cli_config = write_cli_config(tmp_path / "terraform.tfrc", provider_mirror)
    for name, value in terraform_environment(cli_config, home).items():
        monkeypatch.setenv(name, value)
    return Terraform(tmp_path / "work")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[StartServer]:
    """Start `planner serve` processes (`start_server(*args)`); stopped at teardown."""
    started: list[ServeProcess] = []

    def start(*args: str) -> ServeProcess:
        server = start_serve(["--db", str(tmp_path / f"cp-{len(started)}.db"), *args], tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
        server.process.communicate(timeout=10)
