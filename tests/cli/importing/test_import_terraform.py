"""`planner import --from-terraform STATE`: the deployments of a Terraform state (as the
langsmith provider writes it) adopted against the embedded control plane, into a config
written as the state declares them or into `-c`'s, and every refusal."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Callable
from typing import Any

import pytest

from planner.api.models import Deployment
from planner.command_lines import terraform_state_rm
from tests.cli.conftest import SECRET_VALUE, Result, Scenario
from tests.terraform_states import Instance, attributes, show_json, state_file

PUBLIC_VALUE = "debug-public-but-in-the-terraform-state"
Shape = Callable[[list[Instance]], dict[str, Any]]
SHAPES = pytest.mark.parametrize("shape", [state_file, show_json], ids=["state", "show"])
API_ADDRESS = 'module.agents["eu"].langsmith_deployment.api'
WORKER_ADDRESS = "langsmith_deployment.worker[0]"


def made_by_terraform(scenario: Scenario) -> tuple[Deployment, Deployment]:
    """The config's api and worker created remotely (as Terraform's apply left them):
    the worker with a public environment variable, the api with its secret."""
    api = scenario.create_remote("api")
    worker = scenario.create_remote(
        "worker", secrets=[{"name": "LOG_LEVEL", "value": PUBLIC_VALUE}]
    )
    return scenario.wait_until_deployed(api.id), scenario.wait_until_deployed(worker.id)


def terraform_instances(api: Deployment, worker: Deployment) -> list[Instance]:
    """api in a module under `for_each`, worker under `count` with its public map, and a
    data source."""
    public = {"LOG_LEVEL": PUBLIC_VALUE}
    return [
        Instance("api", attributes(api), module='module.agents["eu"]'),
        Instance("worker", attributes(worker, environment_variables=public), index_key=0),
        Instance("revisions", {"id": api.id, "deployment_id": api.id}, mode="data"),
    ]


def write_state(scenario: Scenario, data: dict[str, Any], name: str = "terraform.tfstate") -> str:
    (scenario.root / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return name


def from_terraform(scenario: Scenario, state: str, *argv: str) -> Result:
    return scenario.cli("import", "--from-terraform", state, *argv)


@SHAPES
def test_adopts_the_terraform_state_and_the_next_plan_is_empty(
    scenario: Scenario, shape: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into an empty directory: the generated config declares what the state declares,
    reads every environment variable from the environment (no value copied from the
    state anywhere), the state records the ids, the output names the resources whose
    values the state holds in clear and prints the `terraform state rm` lines; with the
    variables set the next plan is empty."""
    api, worker = made_by_terraform(scenario)
    state = write_state(scenario, shape(terraform_instances(api, worker)))
    scenario.config_path.unlink()
    result = from_terraform(scenario, state, "--generate-config", "planner.toml")
    assert result.code == 0, result.err
    assert f"Adopted 2 deployments of the Terraform state {state} into the state" in result.out
    assert "Set these environment variables (the deployments' environment) to plan: " in result.out
    assert result.out.rstrip().endswith(
        f"  {terraform_state_rm(WORKER_ADDRESS)}\n  {terraform_state_rm(API_ADDRESS)}"
    )
    assert f"  terraform state rm '{API_ADDRESS}'" in result.out
    assert f"holds the environment variable values of {WORKER_ADDRESS} in clear" in result.err
    text = scenario.config_path.read_text()
    for printed in (text, result.out, result.err, scenario.state_path.read_text()):
        assert PUBLIC_VALUE not in printed and SECRET_VALUE not in printed
    data = tomllib.loads(text)
    assert data["deployments"]["worker"]["secrets"] == {"LOG_LEVEL": {"env": "LOG_LEVEL"}}
    assert data["deployments"]["api"]["secrets"] == {"API_TOKEN": {"env": "API_TOKEN"}}
    assert data["deployments"]["api"]["source_config"]["repo_url"] == api.source_config.repo_url
    recorded = scenario.state()
    assert recorded is not None
    assert {n: r.id for n, r in recorded.deployments.items()} == {
        "api": api.id,
        "worker": worker.id,
    }
    monkeypatch.setenv("LOG_LEVEL", PUBLIC_VALUE)
    planned = scenario.plan("--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err


def test_without_the_variables_the_next_plan_names_each(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The environment is not copied: a plan without its variables is one error listing
    them, and with them, empty."""
    api, worker = made_by_terraform(scenario)
    state = write_state(scenario, state_file(terraform_instances(api, worker)))
    scenario.config_path.unlink()
    assert from_terraform(scenario, state, "--generate-config", "planner.toml").code == 0
    monkeypatch.delenv("LOG_LEVEL", raising=False)
    failed = scenario.plan()
    assert failed.code == 1 and "Hint: set these environment variables: LOG_LEVEL" in failed.err


def test_a_state_that_declares_other_values_plans_the_difference(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The config is what the Terraform state declares: a deployment that runs something
    else than the state says shows in the next plan as an update to the state's value."""
    api, worker = made_by_terraform(scenario)
    instances = terraform_instances(api, worker)
    declared = dict(instances[1].attributes)
    declared["source_revision_config"] = {
        **declared["source_revision_config"],
        "image_uri": "registry.example.com/acme/worker:2.0.0",
    }
    instances[1] = Instance("worker", declared, index_key=0)
    state = write_state(scenario, state_file(instances))
    scenario.config_path.unlink()
    assert from_terraform(scenario, state, "--generate-config", "planner.toml").code == 0
    monkeypatch.setenv("LOG_LEVEL", PUBLIC_VALUE)
    planned = scenario.plan("--detailed-exitcode")
    assert planned.code == 2, planned.err
    assert "worker:1.0.0" in planned.out and "worker:2.0.0" in planned.out


def test_imports_into_the_config_without_generate_config(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --generate-config each deployment is adopted into `-c`'s config and state,
    the config left as it is; a deployment it does not declare is refused first."""
    api, worker = made_by_terraform(scenario)
    state = write_state(scenario, show_json(terraform_instances(api, worker)))
    config = scenario.config_path.read_text()
    scenario.write_config(config.split("[deployments.worker]")[0])
    refused = from_terraform(scenario, state)
    assert refused.code == 1
    assert f"planner.toml does not declare worker ({WORKER_ADDRESS})" in refused.err
    assert scenario.state() is None
    scenario.write_config(config)
    result = from_terraform(scenario, state)
    assert result.code == 0, result.err
    assert f"into the state {scenario.state_path}: api, worker." in result.out
    assert "Run `planner plan` to see how they differ from the config." in result.out
    assert scenario.config_path.read_text() == config
    recorded = scenario.state()
    assert recorded is not None and {r.id for r in recorded.deployments.values()} == {
        api.id,
        worker.id,
    }
    monkeypatch.setenv("LOG_LEVEL", PUBLIC_VALUE)
    # the config declares no worker secret: the worker's environment is left as it is
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_deployment_a_planner_state_records_is_refused(scenario: Scenario) -> None:
    """A deployment this state records, or another state of the config (another
    environment's, beside it), is refused naming the resource and that state; nothing
    is written."""
    api, worker = made_by_terraform(scenario)
    scenario.cli("import", "api", api.id)
    state = write_state(scenario, state_file(terraform_instances(api, worker)))
    here = from_terraform(scenario, state)
    assert here.code == 1
    assert f"{API_ADDRESS} (deployment {api.id}, api) is already managed by the state" in here.err
    assert "state/planner.state.json" in here.err
    shutil.move(scenario.state_path, scenario.root / "state" / "planner.prod.state.json")
    elsewhere = from_terraform(scenario, state, "--generate-config", "adopted.toml")
    assert elsewhere.code == 1
    prod = scenario.root / "state" / "planner.prod.state.json"
    assert f"already managed by the state {prod}" in elsewhere.err
    assert not (scenario.root / "adopted.toml").exists()
    assert not (scenario.root / "state" / "adopted.state.json").exists()


def test_a_deployment_the_config_declares_is_not_given_a_second_config(
    scenario: Scenario,
) -> None:
    """With -c's config declaring a name of the Terraform state, --generate-config is
    refused (that config would create it again): import it into -c instead."""
    api, worker = made_by_terraform(scenario)
    state = write_state(scenario, state_file(terraform_instances(api, worker)))
    result = from_terraform(scenario, state, "--generate-config", "adopted.toml")
    assert result.code == 1
    assert f"{state}: {WORKER_ADDRESS} (worker) is declared in planner.toml" in result.err
    assert "leave out --generate-config" in result.err


def test_an_id_the_control_plane_does_not_have_is_refused(scenario: Scenario) -> None:
    """A deployment of the state the control plane does not have (or under another name)
    is one error naming the file and the resource; nothing is written."""
    api, worker = made_by_terraform(scenario)
    instances = terraform_instances(api, worker)
    gone = {**instances[1].attributes, "id": "00000000-0000-4000-8000-00000000dead"}
    state = write_state(scenario, state_file([instances[0], Instance("w", gone)]))
    scenario.config_path.unlink()
    result = from_terraform(scenario, state, "--generate-config", "planner.toml")
    assert result.code == 1
    assert (
        f"{state}: langsmith_deployment.w: no deployment 00000000-0000-4000-8000-00000000dead "
        "(worker) on" in result.err
    )
    renamed = {**instances[1].attributes, "name": "worker-old"}
    state = write_state(scenario, state_file([Instance("w", renamed)]))
    result = from_terraform(scenario, state, "--generate-config", "planner.toml")
    assert result.code == 1
    assert "is named 'worker' on the control plane, not 'worker-old'" in result.err
    assert not scenario.config_path.exists() and scenario.state() is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ('{"version": 3, "resources": []}', "format version 3"),
        ('{"format_version": "1.0", "values": {"root_module": {}}}', "no managed"),
    ],
)
def test_bad_input_is_one_error_naming_the_file(
    scenario: Scenario, content: str, message: str
) -> None:
    """Text that is not JSON, another format version, a state without deployments: exit
    1, the file named, before any request or write."""
    (scenario.root / "bad.tfstate").write_text(content, encoding="utf-8")
    result = from_terraform(scenario, "bad.tfstate", "--generate-config", "new.toml")
    assert result.code == 1
    assert "Error: bad.tfstate: " in result.err and message in result.err
    assert not (scenario.root / "new.toml").exists()


def test_an_existing_file_is_kept_without_force(scenario: Scenario) -> None:
    """--generate-config FILE that exists is refused before the state is read further;
    --force replaces it."""
    api, worker = made_by_terraform(scenario)
    state = write_state(scenario, state_file(terraform_instances(api, worker)))
    before = scenario.config_path.read_text()
    kept = from_terraform(scenario, state, "--generate-config", "planner.toml")
    assert kept.code == 1 and "planner.toml exists: not overwriting it" in kept.err
    assert scenario.config_path.read_text() == before
    replaced = from_terraform(scenario, state, "--generate-config", "planner.toml", "--force")
    assert replaced.code == 0, replaced.err
    assert "planner import --from-terraform" in scenario.config_path.read_text()


@pytest.mark.parametrize(
    ("state", "config", "shown"),
    [
        ("infra/terraform.tfstate", "planner.toml", "infra/terraform.tfstate"),
        ("terraform.tfstate", "infra/agents.toml", "../terraform.tfstate"),
    ],
)
def test_state_file_path_in_the_header_is_the_path_from_the_config_s_folder(
    scenario: Scenario, state: str, config: str, shown: str
) -> None:
    """The generated config says where it came from: the Terraform state's path as seen
    from the config's folder, not its bare file name."""
    api, worker = made_by_terraform(scenario)
    (scenario.root / "infra").mkdir()
    written = write_state(scenario, state_file(terraform_instances(api, worker)))
    (scenario.root / written).rename(scenario.root / state)
    scenario.config_path.unlink()
    result = from_terraform(scenario, state, "--generate-config", config)
    assert result.code == 0, result.err
    first = (scenario.root / config).read_text().splitlines()[0]
    assert first == (
        "# Written by `planner import --from-terraform`: the deployments of the Terraform "
        f"state {shown}, adopted."
    )


def test_attributes_no_field_reads_are_named_as_the_command_used_them(
    scenario: Scenario,
) -> None:
    """An attribute of a newer provider that no field reads: "left out of the config"
    when a config is written, "not read by the planner" into `-c`'s config (none is
    written)."""
    api, worker = made_by_terraform(scenario)
    instances = [
        Instance("api", attributes(api, brand_new_attr="x"), module='module.agents["eu"]'),
        Instance("worker", attributes(worker), index_key=0),
    ]
    state = write_state(scenario, state_file(instances))
    into_config = from_terraform(scenario, state)
    assert into_config.code == 0, into_config.err
    assert (
        f"{API_ADDRESS}: not read by the planner (no field of a deployment is named so): "
        "brand_new_attr"
    ) in into_config.err
    assert "left out of the config" not in into_config.err
    scenario.state_path.unlink()
    scenario.config_path.unlink()
    generated = from_terraform(scenario, state, "--generate-config", "planner.toml")
    assert generated.code == 0, generated.err
    assert (
        f"{API_ADDRESS}: left out of the config (no field of a deployment is named so): "
        "brand_new_attr"
    ) in generated.err
