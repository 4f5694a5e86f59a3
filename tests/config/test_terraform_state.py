"""Reading a Terraform state's `langsmith_deployment` resources: both shapes, addresses
with index keys and modules, what is passed over, and every bad input as one error
naming the file (and the resource)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from planner.api.models import Deployment, Secret
from planner.api.vocabulary import AGENT_CONFIG_KEY, GIT_SOURCE
from planner.config.terraform_state import (
    MAX_STATE_BYTES,
    TerraformDeployment,
    index_text,
    read_terraform_state,
    terraform_deployments,
)
from planner.errors import TerraformStateError
from tests.terraform_states import Instance, attributes, show_json, state_file

TENANT = "6f1c2c1e-0000-4000-8000-000000000001"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
ENV_VALUE = "info-level-value-in-clear"
SHAPES = pytest.mark.parametrize("shape", [state_file, show_json], ids=["state", "show"])


def live(name: str, number: int, **fields: Any) -> Deployment:
    """A deployment as the control plane returns it (the service's words)."""
    body = {
        "id": f"00000000-0000-4000-8000-{number:012d}",
        "tenant_id": TENANT,
        "name": name,
        "source": "internal_docker",
        "source_config": {"deployment_type": "prod", "resource_spec": {"cpu": 1, "min_scale": 1}},
        "source_revision_config": {"image_uri": f"registry.example.com/{name}:1"},
        "secrets": [{"name": "LOG_LEVEL", "value": ENV_VALUE}],
        "created_at": "2026-11-29T05:28:13.203137+00:00",
        "updated_at": "2026-11-29T05:28:13.203137+00:00",
        "status": "READY",
        "latest_revision_id": f"10000000-0000-4000-8000-{number:012d}",
        "active_revision_id": f"10000000-0000-4000-8000-{number:012d}",
    }
    return Deployment.model_validate(body | fields)


def git_live() -> Deployment:
    return live(
        "git-agent",
        9,
        source="github",
        source_config={
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/agent",
            "deployment_type": "dev",
            "build_on_push": False,
            "resource_spec": {"redis_cpu": 0.5},
        },
        source_revision_config={"repo_ref": "main", "langgraph_config_path": "langgraph.json"},
    )


def fleet() -> list[Instance]:
    """A root resource, `count` and `for_each` instances, a module's under `for_each`,
    a nested module's, a data source and another type."""
    return [
        Instance("api", attributes(live("api", 1), environment_variables={"LOG_LEVEL": ENV_VALUE})),
        Instance("worker", attributes(live("worker-0", 2)), index_key=0),
        Instance("worker", attributes(live("worker-1", 3)), index_key=1),
        Instance("region", attributes(live("region-eu", 4)), index_key="eu"),
        Instance("agent", attributes(live("app-eu", 5)), module='module.app["eu"]'),
        Instance("agent", attributes(live("deep", 6)), module="module.a.module.b", index_key=0),
        Instance("revisions", {"id": "x", "deployment_id": "y"}, mode="data"),
        Instance("web", {"id": "z", "name": "n"}, type="langsmith_workspace"),
    ]


def written(tmp_path: Path, data: Any, name: str = "terraform.tfstate") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@SHAPES
def test_both_shapes_give_every_managed_deployment_with_its_address(
    tmp_path: Path, shape: Any
) -> None:
    """A state file and `terraform show -json` give the same managed deployments, each at
    the address Terraform prints (index keys and module paths), data sources and other
    types passed over."""
    found = read_terraform_state(written(tmp_path, shape(fleet())))
    by_address = {d.address: d.name for d in found}
    assert by_address == {
        "langsmith_deployment.api": "api",
        "langsmith_deployment.worker[0]": "worker-0",
        "langsmith_deployment.worker[1]": "worker-1",
        'langsmith_deployment.region["eu"]': "region-eu",
        'module.app["eu"].langsmith_deployment.agent': "app-eu",
        "module.a.module.b.langsmith_deployment.agent[0]": "deep",
    }
    assert [d.address for d in found if d.has_values_in_clear] == ["langsmith_deployment.api"]


def test_an_index_key_is_quoted_as_terraform_parses_it() -> None:
    """`count` keys are bare, `for_each` keys HCL-quoted: quotes, backslashes, line breaks
    and template openers escaped, so the address parses back to the same key."""
    assert index_text(None) == ""
    assert index_text(3) == "[3]"
    assert index_text('a"b\\c\n') == '["a\\"b\\\\c\\n"]'
    assert index_text("${x}%{y}") == '["$${x}%%{y}"]'
    assert index_text("zürich") == '["zürich"]'


def test_declared_maps_the_providers_words_and_never_copies_an_environment_value() -> None:
    """The declared deployment is the live one with the state's declared fields: the
    service's words read as the seed's, nulls dropped, no environment value from the
    state (the secrets are the live deployment's)."""
    deployment = git_live()
    wire = attributes(deployment, environment_variables={"LOG_LEVEL": "from-the-state"})
    wire["source_config"]["resource_spec"] = {"redis_cpu": 0.25, "cpu": None}
    tf = TerraformDeployment("langsmith_deployment.git", wire)
    declared = tf.declared(deployment, Path("s.tfstate"))
    assert declared.source == GIT_SOURCE
    assert getattr(declared.source_revision_config, AGENT_CONFIG_KEY) == "langgraph.json"
    spec = declared.source_config.resource_spec
    assert spec is not None and (spec.cache_cpu, spec.cpu) == (0.25, None)
    assert declared.secrets == [Secret(name="LOG_LEVEL", value=ENV_VALUE)]
    assert "from-the-state" not in declared.model_dump_json()
    revisions = (declared.id, declared.latest_revision_id)
    assert revisions == (deployment.id, deployment.latest_revision_id)


def test_what_no_field_reads_is_named_and_left_out() -> None:
    """Attributes of a newer provider that no field of a deployment reads are listed (the
    Terraform-only ones and the read-only ones are not)."""
    wire = attributes(git_live())
    wire["future_flag"] = True
    wire["source_config"]["preview_mode"] = "on"
    wire["source_config"]["resource_spec"] = {"cpu": 1, "gpu": 2, "redis_memory_mb": 64}
    tf = TerraformDeployment("langsmith_deployment.git", wire)
    assert tf.left_out() == [
        "future_flag",
        "source_config.preview_mode",
        "source_config.resource_spec.gpu",
    ]
    assert TerraformDeployment("a", attributes(git_live())).left_out() == []


def test_a_declared_value_of_the_wrong_kind_names_the_resource() -> None:
    """A state whose attributes are not the provider's is one error naming the resource
    and the field (never its value)."""
    wire = attributes(git_live())
    wire["source_config"]["build_on_push"] = "sometimes"
    tf = TerraformDeployment("langsmith_deployment.git", wire)
    with pytest.raises(TerraformStateError) as caught:
        tf.declared(git_live(), Path("s.tfstate"))
    message = str(caught.value)
    assert message.startswith("s.tfstate: langsmith_deployment.git: source_config.build_on_push")
    assert "sometimes" not in message


def bad_states() -> list[tuple[Any, str]]:
    deployment = attributes(live("api", 1))
    no_id = {**deployment, "id": None}
    twice = [Instance("a", deployment), Instance("b", deployment)]
    deposed = state_file([Instance("api", deployment)])
    deposed["resources"][0]["instances"][0]["deposed"] = "0a1b2c3d"
    return [
        ([1, 2], "not a Terraform state"),
        ({"version": 3, "resources": []}, "format version 3: only version 4 is read"),
        ({"format_version": "2.0", "values": {}}, "format version '2.0': only 1.x"),
        ({"format_version": "1.2", "planned_values": {}}, "the JSON of a Terraform plan"),
        ({"format_version": "1.0"}, "no managed langsmith_deployment resource"),
        (state_file([Instance("r", {"id": "x"}, mode="data")]), "no managed langsmith_deployment"),
        ({"version": 4, "resources": {"a": 1}}, "`resources` is not a list"),
        (state_file([Instance("api", no_id)]), "langsmith_deployment.api: no id"),
        (show_json([Instance("api", {**deployment, "name": ""})]), "api: no name"),
        (state_file([Instance("api", {**deployment, "id": "api"})]), "id 'api' is not a"),
        (state_file(twice), "langsmith_deployment.a and langsmith_deployment.b are one"),
        (deposed, "langsmith_deployment.api: a deposed object"),
    ]


@pytest.mark.parametrize(("data", "message"), bad_states())
def test_a_state_that_cannot_be_adopted_is_one_error_naming_the_file(
    tmp_path: Path, data: Any, message: str
) -> None:
    """Not a state, another format version, a plan, no deployment, a deployment without
    its id or name or with an id that is no UUID, one deployment twice, a deposed object:
    each one error naming the file."""
    path = written(tmp_path, data)
    pattern = f"^{re.escape(str(path))}: .*{re.escape(message)}"
    with pytest.raises(TerraformStateError, match=pattern):
        read_terraform_state(path)


def test_a_file_that_is_not_json_names_where(tmp_path: Path) -> None:
    """Text that is not JSON is an error with the line and column."""
    path = tmp_path / "s.tfstate"
    path.write_text('{\n  "version": 4,\n  oops\n}', encoding="utf-8")
    with pytest.raises(TerraformStateError, match=r"s.tfstate: not JSON \(line 3, column 3"):
        read_terraform_state(path)


def test_reading_is_bounded_in_size_kind_and_depth(tmp_path: Path) -> None:
    """A missing file, a FIFO, a file over the size bound and a document nested past the
    depth bound are each one error, read no further."""
    with pytest.raises(TerraformStateError, match=r"missing\.tfstate: no such file"):
        read_terraform_state(tmp_path / "missing.tfstate")
    fifo = tmp_path / "fifo.tfstate"
    os.mkfifo(fifo)
    with pytest.raises(TerraformStateError, match="it is a FIFO"):
        read_terraform_state(fifo)
    large = tmp_path / "large.tfstate"
    with large.open("wb") as out:
        out.truncate(MAX_STATE_BYTES + 1)
    with pytest.raises(TerraformStateError, match="larger than 32 MB"):
        read_terraform_state(large)
    deep = written(tmp_path, {}, "deep.tfstate")
    deep.write_text("[" * 300 + "]" * 300, encoding="utf-8")
    with pytest.raises(TerraformStateError, match="nested deeper than 256 levels"):
        read_terraform_state(deep)


def test_the_parsed_data_of_either_shape_reads_alike() -> None:
    """`terraform_deployments` on parsed data: the state file and `show -json` of one
    state give the same addresses and attributes, in the state's order of resources."""
    instances = fleet()
    one = terraform_deployments(state_file(instances), Path("a"))
    other = terraform_deployments(show_json(instances), Path("b"))
    assert sorted((d.address, d.id) for d in one) == sorted((d.address, d.id) for d in other)
    assert {d.address: d.attributes for d in one} == {d.address: d.attributes for d in other}
