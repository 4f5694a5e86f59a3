"""Endpoint resolution (flag > env > config > embedded), the embedded plane, config reading."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from planner.api.models import DeploymentCreate, SourceRevisionConfig
from planner.cli.endpoint import (
    embedded_client,
    open_client,
    resolve_endpoint,
    state_dir_from,
)
from planner.config.models import ControlPlaneConfig
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.errors import ConfigError, StateError
from tests.api.api_fakes import SECRET_KEY

CONFIG = {"base_url": "https://config.example/api-host", "tenant_id": "t-config"}
ENV = {"PLANNER_BASE_URL": "https://env.example", "PLANNER_API_KEY": SECRET_KEY}


def test_flag_wins_over_environment_and_config(tmp_path: Path):
    """`--base-url` beats PLANNER_BASE_URL and the config."""
    resolved = resolve_endpoint("https://flag.example/", CONFIG, ENV, tmp_path)
    assert resolved.base_url == "https://flag.example/"
    assert resolved.endpoint == "https://flag.example"
    assert resolved.tenant_id == "t-config"


def test_environment_wins_over_config(tmp_path: Path):
    """PLANNER_BASE_URL and PLANNER_TENANT_ID beat the config's values."""
    env = {**ENV, "PLANNER_TENANT_ID": "t-env"}
    resolved = resolve_endpoint(None, CONFIG, env, tmp_path)
    assert (resolved.base_url, resolved.tenant_id) == ("https://env.example", "t-env")


def test_config_is_used_when_nothing_else_is_set(tmp_path: Path):
    """The config's base_url applies with no flag and no env, as a mapping or an object."""

    class ControlPlane:
        base_url = "https://config.example/api-host"
        tenant_id = None

    assert resolve_endpoint(None, CONFIG, {}, tmp_path).base_url == CONFIG["base_url"]
    assert resolve_endpoint(None, ControlPlane(), {}, tmp_path).tenant_id is None


def test_nothing_configured_means_embedded(tmp_path: Path):
    """No URL anywhere selects the embedded plane under the state dir, default workspace."""
    resolved = resolve_endpoint(None, None, {}, tmp_path)
    assert resolved.is_embedded
    assert resolved.db_path == tmp_path / "local-control-plane.db"
    assert resolved.endpoint == f"embedded:{tmp_path / 'local-control-plane.db'}"
    assert resolved.tenant_id == DEFAULT_TENANT_ID


def test_state_dir_comes_from_the_environment():
    """PLANNER_STATE_DIR overrides the default `state` directory."""
    assert state_dir_from({}) == Path("state")
    assert state_dir_from({"PLANNER_STATE_DIR": "/tmp/x"}) == Path("/tmp/x")


def test_real_url_without_key_is_a_clear_error(tmp_path: Path):
    """A configured URL without PLANNER_API_KEY says to set it (and shows no user info)."""
    with pytest.raises(ConfigError, match="PLANNER_API_KEY is not set") as caught:
        open_client("https://user:pw@cp.example/api-host", None, {}, tmp_path)
    assert "pw" not in str(caught.value)
    assert caught.value.hint is not None and "config file" in caught.value.hint


@pytest.mark.parametrize("url", ["cp.example.com", "ftp://cp.example.com", "https://"])
def test_invalid_url_is_rejected(tmp_path: Path, url: str):
    """A base URL that is not http(s)://host is a config error."""
    with pytest.raises(ConfigError, match="control plane URL"):
        open_client(url, None, {"PLANNER_API_KEY": SECRET_KEY}, tmp_path)


@pytest.mark.anyio
async def test_real_url_client_carries_identity(tmp_path: Path):
    """A client for a real URL exposes its endpoint and workspace for the state file."""
    env = {**ENV, "PLANNER_TENANT_ID": "t-env"}
    async with open_client(None, CONFIG, env, tmp_path) as client:
        assert client.endpoint == "https://env.example"
        assert client.tenant_id == "t-env"
        assert SECRET_KEY not in repr(client)


@pytest.mark.anyio
async def test_embedded_mode_is_announced_and_creates_the_db(tmp_path: Path):
    """The embedded plane says so on one line and keeps its db in the state dir."""
    lines: list[str] = []
    state_dir = tmp_path / "state"
    async with open_client(None, None, {}, state_dir, announce=lines.append) as client:
        assert client.endpoint == f"embedded:{state_dir / 'local-control-plane.db'}"
        providers = await client.list_providers()
    assert lines == [
        f"Using the embedded local control plane ({state_dir / 'local-control-plane.db'}); "
        "set PLANNER_BASE_URL or [control_plane].base_url to use a real one."
    ]
    assert state_dir.is_dir()
    assert len(providers) >= 1


@pytest.mark.anyio
async def test_embedded_mode_accepts_a_configured_workspace(tmp_path: Path):
    """A tenant set in the environment is a workspace of the embedded plane too."""
    tenant = "6f1c2c1e-0000-4000-8000-0000000000aa"
    env = {"PLANNER_TENANT_ID": tenant}
    async with open_client(None, None, env, tmp_path, announce=lambda _: None) as client:
        assert client.tenant_id == tenant
        page = await client.list_deployments()
    assert page.resources == []


def test_loaded_config_section_is_accepted(tmp_path: Path):
    """The config loader's `[control_plane]` model resolves like a plain table."""
    section = ControlPlaneConfig(
        base_url="https://cp.example/api-host", tenant_id="6f1c2c1e-0000-4000-8000-000000000001"
    )
    resolved = resolve_endpoint(None, section, {}, tmp_path)
    assert resolved.base_url == "https://cp.example/api-host"
    assert resolved.tenant_id == "6f1c2c1e-0000-4000-8000-000000000001"


@pytest.mark.anyio
async def test_embedded_plane_runs_in_the_configured_mode(tmp_path: Path):
    """`[control_plane] mode = "self-hosted"` lets the embedded plane take external_docker."""
    create = DeploymentCreate(
        name="docker-agent",
        source="external_docker",
        source_revision_config=SourceRevisionConfig(image_uri="registry.example/agent:1"),
    )
    section = {"mode": "self-hosted"}
    async with open_client(None, section, {}, tmp_path, announce=lambda _: None) as client:
        created = await client.create_deployment(create)
    assert created.source == "external_docker"


def test_unknown_mode_is_a_config_error(tmp_path: Path):
    """A mode that is neither cloud nor self-hosted is rejected before anything starts."""
    with pytest.raises(ConfigError, match=r"control_plane\.mode"):
        resolve_endpoint(None, {"mode": "on-prem"}, {}, tmp_path)


def test_embedded_database_under_a_file_is_a_clear_state_error(tmp_path: Path):
    """A state dir that cannot be made (a file in the way) names the database path."""
    (tmp_path / "blocker").write_text("")
    db_path = tmp_path / "blocker" / "state" / "local-control-plane.db"
    with pytest.raises(StateError, match=f"cannot open the local control plane database {db_path}"):
        embedded_client(db_path, DEFAULT_TENANT_ID)


def test_unopenable_embedded_database_is_a_clear_state_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A PermissionError or a sqlite error while opening the database names its path."""
    import planner.controlplane.store as store_module

    db_path = tmp_path / "local-control-plane.db"
    for error in (PermissionError(1, "Operation not permitted"), sqlite3.OperationalError("x")):

        def refuse(*args: object, error: Exception = error) -> None:
            raise error

        monkeypatch.setattr(store_module, "_create_private", refuse)
        with pytest.raises(StateError, match=f"local control plane database {db_path}"):
            embedded_client(db_path, DEFAULT_TENANT_ID)


@pytest.mark.anyio
async def test_read_only_embedded_database_is_a_clear_state_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """sqlite's "attempt to write a readonly database" during a request is a StateError
    naming the database, not an internal error."""
    from planner.controlplane.store import Store

    db_path = tmp_path / "local-control-plane.db"
    sqlite3.connect(tmp_path / "other.db").close()
    read_only_db = sqlite3.connect(f"file:{tmp_path / 'other.db'}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as refused:  # the real error, code and all
        read_only_db.execute("CREATE TABLE t (x)")
    read_only_db.close()

    def read_only(self: Store) -> None:
        raise refused.value

    async with embedded_client(db_path, DEFAULT_TENANT_ID) as client:
        monkeypatch.setattr(Store, "transaction", read_only)
        monkeypatch.setattr(Store, "snapshot", read_only)  # reads have their own way in
        with pytest.raises(StateError, match=f"database {db_path} is read-only") as caught:
            await client.find_by_name("api", include_deleting=False)
    assert caught.value.hint is not None
