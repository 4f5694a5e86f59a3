"""Paths follow the config file, not the working directory (PRODUCT.md "One target, one
truth"): the default state directory, a relative `[state] url` and the embedded plane's
database are beside the config; `--state` is relative to where the command runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planner.state import LocalFileBackend
from tests.cli.conftest import BASE_CONFIG, Scenario


@pytest.fixture
def team(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`team/planner.toml` (environments dev and prod), run from an empty `elsewhere/`."""
    monkeypatch.delenv("PLANNER_STATE_DIR")
    config = scenario.root / "team" / "planner.toml"
    config.parent.mkdir()
    config.write_text(BASE_CONFIG + "\n[environments.dev]\n[environments.prod]\n")
    (scenario.root / "elsewhere").mkdir()
    monkeypatch.chdir(scenario.root / "elsewhere")
    return config


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def test_a_config_elsewhere_keeps_its_state_and_database_beside_it(
    scenario: Scenario, team: Path
) -> None:
    """`plan -c ../team/planner.toml --env dev` reads team/state/..., the embedded database
    included, and writes nothing in the working directory: apply then plan is empty."""
    applied = scenario.cli("apply", "-c", "../team/planner.toml", "--env", "dev", "--auto-approve")
    assert applied.code == 0, applied.err
    assert (team.parent / "state" / "planner.dev.state.json").is_file()
    assert "../team/state/local-control-plane.db" in applied.err  # the announcement
    planned = scenario.plan("-c", "../team/planner.toml", "--env", "dev", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err
    assert "already exists" not in planned.out + planned.err
    assert files_under(scenario.root / "elsewhere") == []
    os.chdir(scenario.root)
    again = scenario.plan("-c", "team/planner.toml", "--env", "dev", "--detailed-exitcode")
    assert again.code == 0, again.out + again.err
    assert not (scenario.root / "state").exists()


def test_a_relative_state_url_and_state_dir_are_relative_to_the_config(
    scenario: Scenario, team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[state] url = "states/x.json"` and a relative PLANNER_STATE_DIR land under team/."""
    team.write_text(team.read_text() + '\n[state]\nurl = "states/fleet.json"\n')
    monkeypatch.setenv("PLANNER_STATE_DIR", ".planner")
    applied = scenario.cli("apply", "-c", "../team/planner.toml", "--env", "dev", "--auto-approve")
    assert applied.code == 0, applied.err
    state = LocalFileBackend(team.parent / "states" / "fleet.json").read()
    assert state is not None and sorted(state.deployments) == ["api", "worker"]
    assert (team.parent / ".planner" / "local-control-plane.db").is_file()
    assert files_under(scenario.root / "elsewhere") == []


def test_a_relative_state_flag_is_relative_to_the_working_directory(
    scenario: Scenario, team: Path
) -> None:
    """`--state mine.json` (and PLANNER_STATE) name a file where the command runs."""
    argv = ("-c", "../team/planner.toml", "--env", "prod", "--state", "mine.json")
    assert scenario.cli("apply", *argv, "--auto-approve").code == 0
    state = LocalFileBackend(scenario.root / "elsewhere" / "mine.json").read()
    assert state is not None and sorted(state.deployments) == ["api", "worker"]
    assert not (team.parent / "state" / "planner.prod.state.json").exists()


def test_a_moved_checkout_keeps_its_embedded_state(
    scenario: Scenario, team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded plane's database is recorded relative to the config's directory: a
    checkout moved with its state and database plans empty there, and a state recorded
    with the database's absolute path (as before) is still read in place."""
    applied = scenario.cli("apply", "-c", "../team/planner.toml", "--env", "dev", "--auto-approve")
    assert applied.code == 0, applied.err
    state_file = team.parent / "state" / "planner.dev.state.json"
    assert LocalFileBackend(state_file).read().endpoint == (  # type: ignore[union-attr]
        "embedded:state/local-control-plane.db"
    )
    moved = scenario.root / "moved"
    (team.parent).rename(moved)
    monkeypatch.chdir(moved)
    planned = scenario.plan("--env", "dev", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err
    backend = LocalFileBackend(moved / "state" / "planner.dev.state.json")
    doc = backend.read()
    assert doc is not None
    absolute = f"embedded:{(moved / 'state' / 'local-control-plane.db').resolve().as_posix()}"
    backend.write(doc.model_copy(update={"endpoint": absolute}))
    in_place = scenario.plan("--env", "dev", "--detailed-exitcode")
    assert in_place.code == 0, in_place.out + in_place.err
    elsewhere = scenario.root / "elsewhere" / "copy"
    moved.rename(elsewhere)
    monkeypatch.chdir(elsewhere)
    refused = scenario.plan("--env", "dev")
    assert refused.code == 1 and "belongs to another control plane" in refused.err
