"""Where a config's state lives by default."""

from __future__ import annotations

from pathlib import Path

from planner.state import default_state_path, resolve_state_path


def test_default_is_state_dir_and_config_stem() -> None:
    """`configs/prod.toml` keeps its state at `state/prod.state.json`."""
    assert default_state_path("configs/prod.toml", env={}) == Path("state/prod.state.json")


def test_state_dir_from_environment() -> None:
    """PLANNER_STATE_DIR replaces the `state/` directory."""
    env = {"PLANNER_STATE_DIR": "/var/lib/planner"}
    assert default_state_path("planner.json", env=env) == Path(
        "/var/lib/planner/planner.state.json"
    )


def test_explicit_state_wins() -> None:
    """--state is used as given, whatever the config and environment say."""
    env = {"PLANNER_STATE_DIR": "/elsewhere"}
    assert resolve_state_path("my.json", "planner.toml", env=env) == Path("my.json")
    assert resolve_state_path(None, "planner.toml", env=env) == Path(
        "/elsewhere/planner.state.json"
    )


def test_one_state_per_environment() -> None:
    """An environment of the config gets `state/<config stem>.<env>.state.json`."""
    path = resolve_state_path(None, "configs/fleet.toml", {}, environment="prod")
    assert path == Path("state/fleet.prod.state.json")
