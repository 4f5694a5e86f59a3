"""`planner import --all --generate-config FILE`: adopt a whole workspace in one command."""

from __future__ import annotations

import asyncio
import io
import sys
import tomllib

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, DeploymentCreate
from planner.cli.endpoint import embedded_client
from planner.controlplane.settings import EMBEDDED_API_KEY
from planner.state import LocalFileBackend
from tests.cli.conftest import SECRET_VALUE, Scenario

DEV_TENANT = "11111111-1111-4111-8111-111111111111"


def create_as(scenario: Scenario, declared: str, remote_name: str) -> None:
    """Create REMOTE_NAME remotely shaped like the config's DECLARED deployment."""
    body = {"source": "internal_docker", "source_revision_config": {"image_uri": "r/x:1"}}
    if declared == "api":
        body = {
            "source": "git_host",
            "source_config": {
                "repo_url": "https://g/x",
                "integration_id": "9a0e7c55-0000-4000-8000-00000000a001",
            },
            "source_revision_config": {"repo_ref": "main", "agent_config_path": "a.json"},
        }
    create = DeploymentCreate.model_validate({**body, "name": remote_name})
    scenario.remote(lambda client: client.create_deployment(create))


def adopt_all(scenario: Scenario, *argv: str) -> tuple[int, str, str]:
    result = scenario.cli("import", "--all", "--auto-approve", *argv)
    return result.code, result.out, result.err


def test_adopts_into_an_empty_directory_and_the_next_plan_is_empty(scenario: Scenario) -> None:
    """With no config yet, the generated planner.toml and its state make an empty plan."""
    api, worker = scenario.create_remote("api"), scenario.create_remote("worker")
    scenario.config_path.unlink()
    code, out, err = adopt_all(scenario, "--generate-config", "planner.toml")
    assert code == 0, err
    assert "Adopted 2 deployments into the state" in out
    assert "API_TOKEN" in out
    text = scenario.config_path.read_text()
    assert SECRET_VALUE not in text and 'API_TOKEN = { env = "API_TOKEN" }' in text
    data = tomllib.loads(text)
    assert data["defaults"]["source_config"]["resource_spec"] == {"cpu": 0.5, "memory_mb": 512}
    assert data["deployments"]["worker"]["source"] == "internal_docker"
    state = scenario.state()
    assert state is not None
    assert {n: r.id for n, r in state.deployments.items()} == {"api": api.id, "worker": worker.id}
    assert SECRET_VALUE not in scenario.state_path.read_text()
    assert scenario.plan("--detailed-exitcode").code == 0


def test_without_the_variables_one_error_lists_them(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next plan without the secrets' variables fails once, naming each variable."""
    scenario.create_remote("api")
    scenario.config_path.unlink()
    assert adopt_all(scenario, "--generate-config", "planner.toml")[0] == 0
    monkeypatch.delenv("API_TOKEN")
    result = scenario.plan()
    assert result.code == 1
    assert result.err.count("Error:") == 1
    assert "environment variable API_TOKEN is not set" in result.err
    assert "Hint: set these environment variables: API_TOKEN" in result.err


def test_refuses_an_existing_file_without_force(scenario: Scenario) -> None:
    """An existing FILE is kept unless --force; with it, the file's own deployments adopt."""
    scenario.create_remote("api")
    before = scenario.config_path.read_text()
    code, _, err = adopt_all(scenario, "--generate-config", "planner.toml")
    assert code == 1 and "planner.toml exists: not overwriting it" in err
    assert scenario.config_path.read_text() == before
    code, out, err = adopt_all(scenario, "--generate-config", "planner.toml", "--force")
    assert code == 0, err
    assert "Adopted 1 deployment into" in out
    assert scenario.plan("--detailed-exitcode").code == 0


def test_leaves_out_what_the_config_manages_or_declares(scenario: Scenario) -> None:
    """Managed deployments and names the -c config declares are not adopted again."""
    scenario.adopt("api")
    scenario.create_remote("worker")
    create_as(scenario, "api", "extra-agent")
    code, out, err = adopt_all(scenario, "--generate-config", "adopted.toml")
    assert code == 0, err
    assert "declared in planner.toml" in out and "worker" in out
    data = tomllib.loads((scenario.root / "adopted.toml").read_text())
    assert list(data["deployments"]) == ["extra-agent"]
    assert scenario.plan("-c", "adopted.toml", "--detailed-exitcode").code == 0


def test_name_contains_narrows_the_adoption(scenario: Scenario) -> None:
    """Only names containing TEXT are adopted."""
    create_as(scenario, "api", "team-a-api")
    create_as(scenario, "worker", "team-b-worker")
    code, _, err = adopt_all(scenario, "--name-contains", "team-b", "--generate-config", "b.toml")
    assert code == 0, err
    assert list(tomllib.loads((scenario.root / "b.toml").read_text())["deployments"]) == [
        "team-b-worker"
    ]


def test_without_a_terminal_nothing_is_adopted_unless_auto_approved(scenario: Scenario) -> None:
    """In CI (no terminal) and without --auto-approve, `import --all` lists what it would
    adopt, refuses to go on and says how (exit 1, no file, no state); with it, it adopts."""
    create_as(scenario, "worker", "by-hand")
    result = scenario.cli("import", "--all", "--generate-config", "adopted.toml")
    assert result.code == 1
    assert "cannot ask for confirmation: the input is not a terminal" in result.err
    assert "--auto-approve" in result.err
    assert "by-hand (id " in result.out and "states this planner cannot see" in result.out
    assert not (scenario.root / "adopted.toml").exists()
    assert not (scenario.root / "state" / "adopted.state.json").exists()
    code, out, err = adopt_all(scenario, "--generate-config", "adopted.toml")
    assert code == 0, err
    assert "by-hand (id " in out and "Enter a value" not in out
    assert "Adopted 1 deployment into" in out


@pytest.mark.parametrize(("answer", "adopted"), [("yes", True), ("no", False)])
def test_on_a_terminal_it_lists_what_it_adopts_and_asks(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, answer: str, adopted: bool
) -> None:
    """On a terminal `import --all` lists each deployment it is about to adopt (name, id)
    and the state it goes into, warns that states it cannot see may manage them, and
    adopts only on `yes`."""
    create_as(scenario, "worker", "by-hand")
    (hand,) = [d for d in listed(scenario) if d.name == "by-hand"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{answer}\n"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    result = scenario.cli("import", "--all", "--generate-config", "adopted.toml")
    assert f"by-hand (id {hand.id}, created " in result.out
    assert "adopted.state.json" in result.out and "Enter a value" in result.out
    assert "not recorded by this state; states this planner cannot see" in result.out
    assert (result.code == 0) is adopted, result.err
    assert (scenario.root / "adopted.toml").exists() is adopted
    assert (scenario.root / "state" / "adopted.state.json").exists() is adopted


def listed(scenario: Scenario) -> list[Deployment]:
    async def every(client: ControlPlaneClient) -> list[Deployment]:
        return [d async for d in client.iter_deployments()]

    return scenario.remote(every)


def test_nothing_to_adopt_writes_nothing(scenario: Scenario) -> None:
    """An empty workspace writes no file and says so."""
    code, out, _ = adopt_all(scenario, "--generate-config", "new.toml")
    assert code == 0
    assert "nothing was written" in out
    assert not (scenario.root / "new.toml").exists()


def test_a_state_that_already_manages_deployments_is_refused(scenario: Scenario) -> None:
    """FILE's state managing deployments already would plan deletes: refused first."""
    scenario.adopt("api")
    create_as(scenario, "worker", "other")
    code, _, err = adopt_all(
        scenario, "--generate-config", "x.toml", "--state", str(scenario.state_path)
    )
    assert code == 1 and "already manages 1 deployments" in err
    assert not (scenario.root / "x.toml").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "--all needs --generate-config FILE"),
        (("api", "--generate-config", "x.toml"), "give no NAME or ID"),
        (("--generate-config", "x.json"), "written as TOML"),
    ],
)
def test_bad_arguments_are_refused(scenario: Scenario, argv: tuple[str, ...], message: str) -> None:
    """--all needs FILE (a .toml) and no NAME."""
    code, _, err = adopt_all(scenario, *argv)
    assert code == 1 and message in err


def test_generate_config_goes_with_all(scenario: Scenario) -> None:
    """--generate-config without --all is an error, as is import without NAME and ID."""
    assert "goes with --all" in scenario.cli("import", "--generate-config", "x.toml").err
    assert "give NAME and DEPLOYMENT_ID" in scenario.cli("import").err


ENV_CONFIG = f"""
[deployments.api]
source = "internal_docker"
source_revision_config = {{ image_uri = "registry.example.com/acme/api:1" }}

[environments.dev]
control_plane = {{ tenant_id = "{DEV_TENANT}" }}
"""


def test_with_env_adopts_that_environments_workspace(scenario: Scenario) -> None:
    """--env reads the environment's workspace; `-c FILE --env E` then plans it empty."""
    scenario.write_config(ENV_CONFIG)
    create = DeploymentCreate.model_validate(
        {
            "name": "dev-only",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "registry.example.com/acme/dev:1"},
        }
    )

    async def make() -> None:
        async with embedded_client(scenario.db_path, DEV_TENANT) as client:
            await client.create_deployment(create)

    asyncio.run(make())
    code, out, err = adopt_all(scenario, "--env", "dev", "--generate-config", "dev.toml")
    assert code == 0, err
    data = tomllib.loads((scenario.root / "dev.toml").read_text())
    assert data["environments"]["dev"]["control_plane"] == {"tenant_id": DEV_TENANT}
    assert list(data["deployments"]) == ["dev-only"]
    assert "planner plan -c dev.toml --env dev" in out
    state = LocalFileBackend(scenario.root / "state" / "dev.dev.state.json").read()
    assert state is not None and list(state.deployments) == ["dev-only"]
    assert scenario.plan("-c", "dev.toml", "--env", "dev", "--detailed-exitcode").code == 0


def test_over_http_writes_the_control_plane_the_next_plan_reads(
    scenario: Scenario, loopback_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLANNER_BASE_URL/PLANNER_TENANT_ID become [control_plane]; plan needs only the key."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    monkeypatch.setenv("PLANNER_BASE_URL", loopback_url)
    monkeypatch.setenv("PLANNER_TENANT_ID", "00000000-0000-4000-8000-000000000001")
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.state_path.unlink()
    scenario.config_path.unlink()
    code, _, err = adopt_all(scenario, "--generate-config", "planner.toml")
    assert code == 0, err
    data = tomllib.loads(scenario.config_path.read_text())
    assert data["control_plane"] == {
        "base_url": loopback_url,
        "tenant_id": "00000000-0000-4000-8000-000000000001",
    }
    monkeypatch.delenv("PLANNER_BASE_URL")
    monkeypatch.delenv("PLANNER_TENANT_ID")
    result = scenario.plan("--detailed-exitcode")
    assert result.code == 0, result.out + result.err
    assert "embedded" not in result.err


def test_embedded_workspace_from_the_environment_is_written_down(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A non-default PLANNER_TENANT_ID on the embedded plane becomes [control_plane]."""
    scenario.config_path.unlink()
    create = DeploymentCreate.model_validate(
        {
            "name": "solo",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "r/solo:1"},
        }
    )

    async def make() -> None:
        async with embedded_client(scenario.db_path, DEV_TENANT) as client:
            await client.create_deployment(create)

    asyncio.run(make())
    monkeypatch.setenv("PLANNER_TENANT_ID", DEV_TENANT)
    assert adopt_all(scenario, "--generate-config", "planner.toml")[0] == 0
    data = tomllib.loads(scenario.config_path.read_text())
    assert data["control_plane"] == {"tenant_id": DEV_TENANT}
    monkeypatch.delenv("PLANNER_TENANT_ID")
    assert scenario.plan("--detailed-exitcode").code == 0
