"""Resolving one environment: templates, overlays, variables, and their problems."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.config.environments import Inputs, environment_names, resolve_environment
from planner.config.merge import deep_merge
from planner.errors import ConfigError
from tests.strategies import valid_configs

FLEET = """
[variables.image_tag]
default = "1.0.0"

[control_plane]
mode = "cloud"

[defaults.source_config.resource_spec]
max_scale = 2
labels = { team = "core" }

[templates.git-agent]
source = "git_host"
source_config = { integration_id = "9a0e7c55-0000-4000-8000-00000000a001", build_on_push = false }
source_revision_config = { agent_config_path = "agent.json", repo_ref = "main" }

[deployments.support-agent]
template = "git-agent"
source_config.repo_url = "https://git.example.com/acme/support-${env}"

[deployments.hello-agent]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/hello:${var.image_tag}"

[deployments.canary-agent]
template = "git-agent"
environments = ["dev"]
source_config.repo_url = "https://git.example.com/acme/canary"

[environments.dev]
control_plane = { tenant_id = "11111111-1111-4111-8111-111111111111" }
variables = { image_tag = "1.4.0" }
defaults.source_config.resource_spec = { max_scale = 1 }

[environments.prod]
control_plane = { tenant_id = "33333333-3333-4333-8333-333333333333" }
defaults.lifecycle = { protect = true }

[environments.prod.deployments.support-agent.source_config.resource_spec]
max_scale = 20
"""


def _resolve(text: str, env: str | None = None, **inputs: Any) -> dict[str, Any]:
    return resolve_environment(tomllib.loads(text), Inputs(env=env, **inputs), label="f.toml")


def _details(text: str, env: str | None = None, **inputs: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        _resolve(text, env, **inputs)
    return caught.value.details


def test_an_environment_resolves_to_a_plain_config() -> None:
    """dev: its control plane, defaults merged, template applied, variables and ${env} filled."""
    dev = _resolve(FLEET, "dev")
    assert dev["control_plane"] == {
        "mode": "cloud",
        "tenant_id": "11111111-1111-4111-8111-111111111111",
    }
    assert dev["defaults"] == {
        "source_config": {"resource_spec": {"max_scale": 1, "labels": {"team": "core"}}}
    }
    support = dev["deployments"]["support-agent"]
    assert support["source"] == "git_host"
    assert support["source_config"]["repo_url"].endswith("/support-dev")
    assert support["source_config"]["build_on_push"] is False
    hello = dev["deployments"]["hello-agent"]["source_revision_config"]["image_uri"]
    assert hello.endswith(":1.4.0")
    assert list(dev["deployments"]) == ["support-agent", "hello-agent", "canary-agent"]
    assert "variables" not in dev and "templates" not in dev and "environments" not in dev


def test_environment_overrides_and_deployment_selection() -> None:
    """prod: the per-deployment override wins, the dev-only canary is absent."""
    prod = _resolve(FLEET, "prod")
    assert list(prod["deployments"]) == ["support-agent", "hello-agent"]
    spec = prod["deployments"]["support-agent"]["source_config"]["resource_spec"]
    assert spec == {"max_scale": 20}
    assert prod["defaults"]["lifecycle"] == {"protect": True}
    image = prod["deployments"]["hello-agent"]["source_revision_config"]["image_uri"]
    assert image.endswith(":1.0.0")


def test_overrides_and_environ_win_over_the_environment() -> None:
    """--var beats PLANNER_VAR_NAME, which beats [environments.E.variables]."""
    environ = {"PLANNER_VAR_image_tag": "2.0.0"}
    image = ("deployments", "hello-agent", "source_revision_config", "image_uri")

    def pick(resolved: dict[str, Any]) -> str:
        node: Any = resolved
        for key in image:
            node = node[key]
        return str(node)

    assert pick(_resolve(FLEET, "dev", environ=environ)).endswith(":2.0.0")
    assert pick(_resolve(FLEET, "dev", environ=environ, overrides={"image_tag": "3"})).endswith(
        ":3"
    )


def test_choosing_an_environment_is_required_refused_or_checked() -> None:
    """With environments one is required; without, --env is refused; unknown suggests one."""
    with pytest.raises(ConfigError, match=r"has environments \(dev, prod\); choose one"):
        _resolve(FLEET)
    with pytest.raises(ConfigError, match="has no \\[environments\\]"):
        _resolve("[deployments]\n", "dev")
    with pytest.raises(ConfigError, match="no environment 'prd' \\(did you mean 'prod'\\?\\)"):
        _resolve(FLEET, "prd")
    assert environment_names(tomllib.loads(FLEET)) == ["dev", "prod"]


def test_problems_name_file_environment_table_and_deployment() -> None:
    """Unknown template, variable in a template, override target: each at its place."""
    text = FLEET.replace(
        'template = "git-agent"\nsource_config.repo_url = "https://git.example.com/acme/support',
        'template = "git-agnet"\nsource_config.repo_url = "https://git.example.com/acme/support',
    )
    text += '\n[environments.prod.deployments.supprt-agent]\nsource = "git_host"\n'
    text = text.replace('repo_ref = "main"', 'repo_ref = "${var.branch}"')
    with pytest.raises(ConfigError, match=r"f.toml \(environment prod\) is invalid") as caught:
        _resolve(text, "prod")
    assert caught.value.details == [
        "f.toml: environments.prod.deployments.supprt-agent: no deployment 'supprt-agent' "
        "to override (did you mean 'support-agent'?)",
        "f.toml: deployments.support-agent.template: unknown template 'git-agnet' "
        "(did you mean 'git-agent'?)",
        "f.toml: templates.git-agent.source_revision_config.repo_ref: unknown variable 'branch'",
    ]
    details = _details(text, "dev")
    assert details[-1].endswith("unknown variable 'branch' (in deployment canary-agent)")


def test_malformed_new_tables_are_problems() -> None:
    """Templates naming templates, bad environment keys, bad selections are all reported."""
    text = (
        """
    [templates.a]
    template = "b"
    [templates.b]
    source = "git_host"
    [templates.c]
    x = 1
    [deployments.d]
    template = 3
    environments = ["dve"]
    [deployments.e]
    environments = "dev"
    [environments.dev]
    variabels = {}
    control_plane = 1
    deployments.d = { template = "a" }
    deployments.e = 2
    """.replace("\n    ", "\n")
        .replace("x = 1", "")
        .replace("[templates.c]", "[templates.c]\n")
    )
    details = _details(text, "dev")
    assert (
        "f.toml: environments.dev.variabels: unknown key 'variabels' (did you mean 'variables'?)"
        in details
    )
    assert (
        "f.toml: templates.a.template: a template cannot set 'template' "
        "(only a deployment picks it)" in details
    )
    assert (
        "f.toml: environments.dev.deployments.d: cannot set 'template' or 'environments'" in details
    )
    assert "f.toml: environments.dev.deployments.e: must be a table" in details
    assert "f.toml: environments.dev.control_plane: must be a table" in details
    assert "f.toml: deployments.d.template: must be the name of a [templates] table" in details
    assert (
        "f.toml: deployments.d.environments[0]: unknown environment 'dve' (did you mean 'dev'?)"
        in details
    )
    assert "f.toml: deployments.e.environments: must be a list of environment names" in details


def test_whole_sections_of_the_wrong_shape_are_problems() -> None:
    """Non-table templates, environments and their deployments are reported, not crashed on."""
    raw: dict[str, Any] = {
        "templates": 1,
        "deployments": {"a": 1, "b": {"environments": ["dev"]}},
        "environments": {"dev": 5},
    }
    with pytest.raises(ConfigError) as caught:
        resolve_environment(raw, Inputs(env="dev"), label="f.json")
    assert caught.value.details == [
        "f.json: environments.dev: must be a table",
        "f.json: templates: must be a table of templates by name",
    ]
    raw = {"templates": {"t": 1}, "deployments": {"b": {"environments": ["dev"]}}}
    details = [*_problems_of(raw)]
    assert details == [
        "f.json: deployments.b.environments: the config has no [environments] to choose from",
        "f.json: templates.t: must be a table",
    ]
    raw = {"deployments": {}, "environments": {"dev": {"deployments": 1}}}
    with pytest.raises(ConfigError) as caught:
        resolve_environment(raw, Inputs(env="dev"), label="f.json")
    assert caught.value.details == [
        "f.json: environments.dev.deployments: must be a table of deployments by name"
    ]


def _problems_of(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        resolve_environment(raw, Inputs(), label="f.json")
    return caught.value.details


def test_shapes_the_loader_reports_pass_through() -> None:
    """Non-table deployments (reported by the loader) are left as they are."""
    assert resolve_environment({"deployments": 1}, Inputs(), label="f") == {"deployments": 1}
    assert resolve_environment({"deployments": {"a": 1}}, Inputs(), label="f") == {
        "deployments": {"a": 1}
    }


def test_control_plane_only_in_the_environment() -> None:
    """An environment's control_plane stands alone when the file has none."""
    raw = {"environments": {"dev": {"control_plane": {"mode": "cloud"}}}}
    assert resolve_environment(raw, Inputs(env="dev"), label="f") == {
        "control_plane": {"mode": "cloud"}
    }


@given(valid_configs())
def test_a_config_without_new_tables_resolves_to_itself(case: Any) -> None:
    """Without variables, templates or environments (and no `$`), nothing changes."""
    if "$" in repr(case.data):
        return
    assert resolve_environment(case.data, Inputs(), label="f") == case.data


LAYER_NAMES = ("defaults", "env_defaults", "template", "deployment", "env_deployment")
leaf_values = st.one_of(st.integers(), st.lists(st.integers(), max_size=2), st.text(max_size=3))
layer_tables = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.one_of(leaf_values, st.dictionaries(st.sampled_from(["x", "y"]), leaf_values, max_size=2)),
    max_size=3,
)


def _stack_config(layers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    def wrapped(layer: str) -> dict[str, Any]:
        return {"source_config": layers[layer]}

    return {
        "defaults": wrapped("defaults"),
        "templates": {"t": wrapped("template")},
        "deployments": {"d": {"template": "t", **wrapped("deployment")}},
        "environments": {
            "e": {
                "defaults": wrapped("env_defaults"),
                "deployments": {"d": wrapped("env_deployment")},
            }
        },
    }


@given(st.fixed_dictionaries({name: layer_tables for name in LAYER_NAMES}))
def test_merge_respects_the_documented_order(layers: dict[str, dict[str, Any]]) -> None:
    """For any stack of layers, each top-level key takes the highest layer that sets it."""
    if "$" in repr(layers):
        return
    resolved = resolve_environment(_stack_config(layers), Inputs(env="e"), label="f")
    effective = deep_merge(resolved["defaults"], resolved["deployments"]["d"])["source_config"]
    for key in {key for layer in layers.values() for key in layer}:
        setters = [name for name in LAYER_NAMES if key in layers[name]]
        top = layers[setters[-1]][key]
        if not isinstance(top, dict):
            assert effective[key] == top
        else:
            for inner, value in top.items():
                assert effective[key][inner] == value


@given(st.permutations(list(tomllib.loads(FLEET))), st.sampled_from(["dev", "prod"]))
def test_resolving_is_deterministic_and_order_independent(order: list[str], env: str) -> None:
    """The same config in any key order resolves to the same (equal) result, every time."""
    raw = tomllib.loads(FLEET)
    shuffled = {key: raw[key] for key in order}
    first = resolve_environment(raw, Inputs(env=env), label="f")
    assert resolve_environment(shuffled, Inputs(env=env), label="f") == first
    assert resolve_environment(raw, Inputs(env=env), label="f") == first
