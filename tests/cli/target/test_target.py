"""`resolve_target`: the one resolver of a command's config, state and endpoint."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from planner.cli.options import WorkspaceOptions
from planner.cli.target import default_state_dir, resolve_target
from planner.errors import ConfigError

POSTGRES = "postgresql://planner@db.example/planner"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_default_state_is_beside_the_config(tmp_path: Path) -> None:
    """`configs/prod.toml` keeps its state at `configs/state/prod.state.json`."""
    config = write(tmp_path / "configs" / "prod.toml", "")
    target = resolve_target(WorkspaceOptions(config=str(config)), {})
    assert Path(target.state.location) == tmp_path / "configs" / "state" / "prod.state.json"
    assert target.endpoint.db_path == tmp_path / "configs" / "state" / "local-control-plane.db"


def test_a_relative_state_dir_is_relative_to_the_config(tmp_path: Path) -> None:
    """A relative $PLANNER_STATE_DIR is under the config's directory, an absolute one as is."""
    config = tmp_path / "sub" / "planner.json"
    relative = default_state_dir(config, {"PLANNER_STATE_DIR": ".planner"})
    assert relative == tmp_path / "sub" / ".planner"
    assert default_state_dir(config, {"PLANNER_STATE_DIR": "/var/lib/p"}) == Path("/var/lib/p")


def test_a_relative_state_url_is_relative_to_the_config(tmp_path: Path) -> None:
    """`[state] url = "states/x.json"` is a file beside the config, not in the working dir."""
    config = write(tmp_path / "team" / "planner.toml", '[state]\nurl = "states/x.json"\n')
    target = resolve_target(WorkspaceOptions(config=str(config)), {})
    assert Path(target.state.location) == tmp_path / "team" / "states" / "x.json"


def test_flag_and_environment_state_are_as_given(tmp_path: Path) -> None:
    """`--state` (then $PLANNER_STATE) wins over `[state] url` and stays as typed."""
    config = write(tmp_path / "team" / "planner.toml", '[state]\nurl = "states/x.json"\n')
    options = WorkspaceOptions(config=str(config), state="my.json")
    assert resolve_target(options, {"PLANNER_STATE": "env.json"}).state.location == "my.json"
    from_env = resolve_target(WorkspaceOptions(config=str(config)), {"PLANNER_STATE": "e.json"})
    assert from_env.state.location == "e.json"


def test_one_state_per_environment(tmp_path: Path) -> None:
    """An environment gets `<stem>.<env>.state.json`, and its name in PostgreSQL."""
    config = write(tmp_path / "fleet.toml", "[environments.prod]\n")
    target = resolve_target(WorkspaceOptions(config=str(config), env="prod"), {})
    assert Path(target.state.location).name == "fleet.prod.state.json"
    pg = resolve_target(WorkspaceOptions(config=str(config), state=POSTGRES, env="prod"), {})
    assert (pg.state.location, pg.state.name) == (POSTGRES, "fleet.prod")


def test_environments_need_one_unless_a_state_file_is_named(tmp_path: Path) -> None:
    """A config with environments needs --env, except when --state FILE names the state."""
    config = write(tmp_path / "fleet.toml", "[environments.dev]\n[environments.prod]\n")
    with pytest.raises(ConfigError, match=r"has environments \(dev, prod\); choose one"):
        resolve_target(WorkspaceOptions(config=str(config)), {})
    named = resolve_target(WorkspaceOptions(config=str(config), state="s.json"), {})
    assert named.state.location == "s.json"


def test_the_endpoint_follows_flag_environment_config(tmp_path: Path) -> None:
    """`--base-url` beats PLANNER_BASE_URL, which beats the config; the key is env-only."""
    config = write(
        tmp_path / "planner.toml",
        '[control_plane]\nbase_url = "https://config.example"\n'
        'tenant_id = "6f1c2c1e-0000-4000-8000-000000000001"\n',
    )
    environ = {"PLANNER_BASE_URL": "https://env.example", "PLANNER_API_KEY": "k"}
    by_flag = WorkspaceOptions(config=str(config), base_url="https://flag.example")
    assert resolve_target(by_flag, environ).endpoint.base_url == "https://flag.example"
    endpoint = resolve_target(WorkspaceOptions(config=str(config)), environ).endpoint
    assert (endpoint.base_url, endpoint.api_key) == ("https://env.example", "k")
    assert endpoint.tenant_id == "6f1c2c1e-0000-4000-8000-000000000001"
    assert resolve_target(WorkspaceOptions(config=str(config)), {}).endpoint.base_url == (
        "https://config.example"
    )


def test_an_environment_has_its_own_control_plane(tmp_path: Path) -> None:
    """`[environments.E.control_plane]` is the endpoint of environment E."""
    config = write(
        tmp_path / "planner.toml",
        "[environments.dev]\n[environments.prod.control_plane]\n"
        'base_url = "https://prod.example"\n',
    )
    prod = resolve_target(WorkspaceOptions(config=str(config), env="prod"), {})
    dev = resolve_target(WorkspaceOptions(config=str(config), env="dev"), {})
    assert (prod.endpoint.base_url, dev.endpoint.is_embedded) == ("https://prod.example", True)


def test_an_unknown_mode_is_a_config_error(tmp_path: Path) -> None:
    """A mode that is neither cloud nor self-hosted is refused before anything starts."""
    config = write(tmp_path / "planner.toml", '[control_plane]\nmode = "on-prem"\n')
    with pytest.raises(ConfigError) as caught:
        resolve_target(WorkspaceOptions(config=str(config)), {})
    assert any("control_plane.mode" in line for line in caught.value.details)


def test_a_missing_default_config_resolves_from_flags_and_environment(tmp_path: Path) -> None:
    """Without a config file (e.g. `providers`), the defaults apply; a `-c` FILE must exist."""
    default = resolve_target(WorkspaceOptions(), {"PLANNER_BASE_URL": "https://e.example"})
    assert default.endpoint.base_url == "https://e.example" and default.raw is None
    with pytest.raises(ConfigError, match="not found"):
        resolve_target(WorkspaceOptions(config=str(tmp_path / "nope.toml")), {})


def test_the_files_data_is_taken_once(tmp_path: Path) -> None:
    """The config's data read while resolving is handed to the one full load, then let go
    of (the target stays equal): a later load reads the file again."""
    config = write(tmp_path / "app.toml", '[deployments.api]\nsource = "internal_docker"\n')
    target = resolve_target(WorkspaceOptions(config=str(config)), {})
    before = replace(target)
    raw = target.take_raw()
    assert raw is not None and raw["deployments"]["api"]["source"] == "internal_docker"
    assert target.raw is None and target.take_raw() is None
    assert target == before
