"""`import --all` adopts into a state of FILE's own where every other command of the folder
keeps its states (`-c`'s `[state] url` file: FILE's state beside it; a PostgreSQL URL: the
state named after FILE's stem), or into the state `--state` names, and writes it into the
generated config, so that `planner plan -c FILE` reads it with nothing else given and the
plans of `-c` are unaffected."""

from __future__ import annotations

import tomllib

import pytest

from planner.api.models import DeploymentCreate
from planner.state import LocalFileBackend
from tests.cli.conftest import BASE_CONFIG, Scenario

STATE_URL = '[state]\nurl = "custom/adopt.state.json"\n'


def make_by_hand(scenario: Scenario) -> str:
    """A deployment no state records: its id."""
    create = DeploymentCreate.model_validate(
        {
            "name": "by-hand",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "r:1"},
        }
    )
    return scenario.remote(lambda client: client.create_deployment(create)).id


def recorded_ids(scenario: Scenario, path: str) -> dict[str, str]:
    state = LocalFileBackend(scenario.root / path).read()
    assert state is not None, f"no state at {path}"
    return {name: record.id for name, record in state.deployments.items()}


@pytest.mark.parametrize(("file", "written"), [
    ("gen.toml", "custom/gen.state.json"),
    ("out/gen.toml", "../custom/gen.state.json"),
])  # fmt: skip
def test_adopts_into_a_state_of_its_own_beside_the_state_url_of_the_config(
    scenario: Scenario, file: str, written: str
) -> None:
    """With `[state] url = "custom/adopt.state.json"` in planner.toml (no deployments), the
    records go to `custom/gen.state.json` beside it (not to planner.toml's own state), FILE
    names it (relative to FILE's folder), `plan -c FILE` is empty at once, and planner.toml,
    given a deployment, plans to create it and delete nothing."""
    scenario.write_config(STATE_URL)
    hand = make_by_hand(scenario)
    result = scenario.cli("import", "--all", "--auto-approve", "--generate-config", file)
    assert result.code == 0, result.err
    assert recorded_ids(scenario, "custom/gen.state.json") == {"by-hand": hand}
    assert not (scenario.root / "custom" / "adopt.state.json").exists()
    assert tomllib.loads((scenario.root / file).read_text())["state"] == {"url": written}
    planned = scenario.plan("-c", file, "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err
    scenario.write_config(BASE_CONFIG + STATE_URL)
    own = scenario.plan("--detailed-exitcode")
    assert own.code == 2, own.err
    assert "will be deleted" not in own.out
    assert "0 to delete" in own.out


@pytest.mark.parametrize("how", ["PLANNER_STATE", "--state"])
def test_a_given_state_file_is_written_into_the_generated_config(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A state file given by PLANNER_STATE or --state (no config in the folder) takes the
    records, and FILE names it, so `plan -c FILE` finds them without either."""
    scenario.config_path.unlink()
    hand = make_by_hand(scenario)
    given = ["--state", "team/shared.state.json"] if how == "--state" else []
    if how == "PLANNER_STATE":
        monkeypatch.setenv("PLANNER_STATE", "team/shared.state.json")
    argv = ["import", "--all", "--auto-approve", "--generate-config", "out/gen.toml", *given]
    result = scenario.cli(*argv)
    assert result.code == 0, result.err
    assert recorded_ids(scenario, "team/shared.state.json") == {"by-hand": hand}
    data = tomllib.loads((scenario.root / "out" / "gen.toml").read_text())
    assert data["state"] == {"url": "../team/shared.state.json"}
    monkeypatch.delenv("PLANNER_STATE", raising=False)
    planned = scenario.plan("-c", "out/gen.toml", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err


def test_a_state_file_the_config_uses_is_not_shared(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLANNER_STATE names a file planner.toml (no deployments yet) uses too: adopting into
    it would make planner.toml's next plans delete the adopted ones, so it is refused
    before anything is written; `--state PATH` gives them a state of their own."""
    scenario.write_config("# no deployments yet\n")
    monkeypatch.setenv("PLANNER_STATE", "custom/adopt.state.json")
    make_by_hand(scenario)
    result = scenario.cli("import", "--all", "--auto-approve", "--generate-config", "gen.toml")
    assert result.code == 1
    assert "planner.toml" in result.err
    assert "custom/adopt.state.json" in result.err
    assert not (scenario.root / "gen.toml").exists()
    assert not (scenario.root / "custom" / "adopt.state.json").exists()
    argv = ["import", "--all", "--auto-approve", "--generate-config", "gen.toml"]
    result = scenario.cli(*argv, "--state", "own.state.json")
    assert result.code == 0, result.err
    assert tomllib.loads((scenario.root / "gen.toml").read_text())["state"] == {
        "url": "own.state.json"
    }
