"""Opening an endpoint (`open_client`): a URL with its key, or the embedded plane."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from planner.api.models import DeploymentCreate, SourceRevisionConfig
from planner.cli.endpoint import Endpoint, embedded_client, open_client
from planner.cli.target import resolve_endpoint
from planner.config.models import ControlPlaneConfig
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.errors import ConfigError, StateError
from tests.api.api_fakes import SECRET_KEY

CONFIG = ControlPlaneConfig.model_construct(
    base_url="https://config.example/api-host", tenant_id="t-config"
)
NONE = ControlPlaneConfig()
ENV = {"PLANNER_BASE_URL": "https://env.example", "PLANNER_API_KEY": SECRET_KEY}


def test_nothing_configured_means_embedded(tmp_path: Path):
    """No URL anywhere selects the embedded plane under the state dir, default workspace."""
    resolved = resolve_endpoint(None, NONE, {}, tmp_path)
    assert resolved.is_embedded
    assert resolved.db_path == tmp_path / "local-control-plane.db"
    assert resolved.endpoint == f"embedded:{tmp_path / 'local-control-plane.db'}"
    assert resolved.tenant_id == DEFAULT_TENANT_ID


def test_real_url_without_key_is_a_clear_error(tmp_path: Path):
    """A configured URL without PLANNER_API_KEY says to set it (and shows no user info)."""
    with pytest.raises(ConfigError, match="PLANNER_API_KEY is not set") as caught:
        open_client(Endpoint("https://user:pw@cp.example/api-host", None))
    assert "pw" not in str(caught.value)
    assert caught.value.hint is not None and "config file" in caught.value.hint


@pytest.mark.parametrize("url", ["cp.example.com", "ftp://cp.example.com", "https://"])
def test_invalid_url_is_rejected(tmp_path: Path, url: str):
    """A base URL that is not http(s)://host is a config error."""
    with pytest.raises(ConfigError, match="control plane URL"):
        open_client(Endpoint(url, None, SECRET_KEY))


@pytest.mark.anyio
async def test_real_url_client_carries_identity(tmp_path: Path):
    """A client for a real URL exposes its endpoint and workspace for the state file."""
    env = {**ENV, "PLANNER_TENANT_ID": "t-env"}
    async with open_client(resolve_endpoint(None, CONFIG, env, tmp_path)) as client:
        assert client.endpoint == "https://env.example"
        assert client.tenant_id == "t-env"
        assert SECRET_KEY not in repr(client)


@pytest.mark.anyio
async def test_embedded_mode_is_announced_and_creates_the_db(tmp_path: Path):
    """The embedded plane says so on one line and keeps its db in the state dir."""
    lines: list[str] = []
    state_dir = tmp_path / "state"
    endpoint = resolve_endpoint(None, NONE, {}, state_dir)
    async with open_client(endpoint, announce=lines.append) as client:
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
    endpoint = resolve_endpoint(None, NONE, env, tmp_path)
    async with open_client(endpoint, announce=lambda _: None) as client:
        assert client.tenant_id == tenant
        page = await client.list_deployments()
    assert page.resources == []


@pytest.mark.anyio
async def test_embedded_plane_runs_in_the_configured_mode(tmp_path: Path):
    """`[control_plane] mode = "self-hosted"` lets the embedded plane take external_docker."""
    create = DeploymentCreate(
        name="docker-agent",
        source="external_docker",
        source_revision_config=SourceRevisionConfig(image_uri="registry.example/agent:1"),
    )
    section = ControlPlaneConfig(mode="self-hosted")
    endpoint = resolve_endpoint(None, section, {}, tmp_path)
    async with open_client(endpoint, announce=lambda _: None) as client:
        created = await client.create_deployment(create)
    assert created.source == "external_docker"


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
