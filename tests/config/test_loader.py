"""load_config: the whole file at once, every problem reported in one ConfigError."""

from __future__ import annotations

import json
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import tomli_w
from hypothesis import given, settings

from planner.api.rules import Mode
from planner.config import load_config
from planner.errors import ConfigError
from tests.strategies import ConfigCase, broken_configs, valid_configs

Load = Callable[..., object]
ProblemsOf = Callable[..., list[str]]

BROKEN = """
[control_plane]
tenant_id = "not-a-uuid"

[defaults.source_config.resource_spec]
cpus = 1

[deployments.Api]
source = "internal_docker"
source_revision_config = { image_uri = "img:1" }

[deployments.web]
source = "git_host"

[deployments.web.source_config.resource_spec]
min_scale = 5
max_scale = 1
memory_mb = -5

[deployments.web.secrets]
TOKEN = { env = "WEB_TOKEN" }
"""


def test_all_problems_are_reported_at_once(write_config: Callable[..., Path]) -> None:
    """Problems from every section and deployment come back together, in file order."""
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(BROKEN), environ={})
    error = caught.value
    assert error.code == "config-invalid"
    assert error.message == "planner.toml is invalid (10 problems)"
    assert error.details == [
        "planner.toml: control_plane.tenant_id: must be a valid UUID",
        "planner.toml: defaults.source_config.resource_spec.cpus: "
        "unknown key (did you mean 'cpu'?)",
        "planner.toml: deployments.Api: deployment name 'Api' must be lowercase letters, "
        "digits and '-', starting and ending with a letter or digit",
        "planner.toml: deployments.web.secrets.TOKEN: "
        "environment variable WEB_TOKEN is not set (secret of deployment web)",
        "planner.toml: deployments.web.source_config.integration_id: "
        "required for source 'git_host'",
        "planner.toml: deployments.web.source_config.repo_url: required for source 'git_host'",
        "planner.toml: deployments.web.source_revision_config.repo_ref: "
        "required for source 'git_host'",
        "planner.toml: deployments.web.source_revision_config.agent_config_path: "
        "required for source 'git_host'",
        "planner.toml: deployments.web.source_config.resource_spec.memory_mb: must not be negative",
        "planner.toml: deployments.web.source_config.resource_spec.min_scale: "
        "must not be greater than max_scale (5 > 1)",
    ]
    assert error.hint is not None and "docs/guides/config.md" in error.hint


def test_control_plane_is_loaded(load: Load, docker_api: str) -> None:
    """base_url, tenant_id and mode come from [control_plane]; the path is kept."""
    text = (
        '[control_plane]\nbase_url = "https://cp.example.com/api-host"\n'
        'tenant_id = "6F1C2C1E-0000-4000-8000-000000000001"\n' + docker_api
    )
    config = load(text)
    plane = config.control_plane  # type: ignore[attr-defined]
    assert plane.base_url == "https://cp.example.com/api-host"
    assert plane.tenant_id == "6f1c2c1e-0000-4000-8000-000000000001"
    assert config.mode is Mode.CLOUD  # type: ignore[attr-defined]
    assert config.path == Path("planner.toml")  # type: ignore[attr-defined]


def test_control_plane_defaults_to_cloud_without_endpoint(load: Load, docker_api: str) -> None:
    """Without [control_plane] there is no URL (the embedded one) and the mode is cloud."""
    plane = load(docker_api).control_plane  # type: ignore[attr-defined]
    assert (plane.base_url, plane.tenant_id, plane.mode) == (None, None, "cloud")


def test_mode_argument_overrides_the_file(load: Load) -> None:
    """An explicit mode (e.g. the server's) replaces [control_plane] mode."""
    text = (
        '[control_plane]\nmode = "cloud"\n[deployments.ops]\nsource = "external_docker"\n'
        'source_revision_config = { image_uri = "i:1" }\n'
    )
    config = load(text, mode=Mode.SELF_HOSTED)
    assert config.mode is Mode.SELF_HOSTED  # type: ignore[attr-defined]


def test_a_config_without_deployments_is_valid(load: Load) -> None:
    """An empty file declares no deployments (and so would destroy what it manages)."""
    config = load("")
    assert config.deployments == {}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("deployments = 3\n", "planner.toml: deployments: must be a table of deployments by name"),
        ("deployments = { api = 3 }\n", "planner.toml: deployments.api: must be a table"),
        ("defaults = []\n", "planner.toml: defaults: must be a table"),
        ("control_plane = 'x'\n", "planner.toml: control_plane: must be a table"),
    ],
)
def test_sections_must_be_tables(problems_of: ProblemsOf, text: str, line: str) -> None:
    """Sections of the wrong kind are reported, not crashed on."""
    assert line in problems_of(text)


def test_json_null_section_is_reported_once(problems_of: ProblemsOf) -> None:
    """A null section is one problem (not also 'must be a table')."""
    assert problems_of('{"deployments": null}', name="planner.json") == [
        "planner.json: deployments: null is not allowed; leave the key out to leave it unmanaged"
    ]


def test_toml_and_json_load_the_same(load: Load, in_tmp: Path) -> None:
    """The same structure in TOML and in JSON gives equal desired state."""
    example = Path(__file__).parents[2] / "examples" / "fleet.toml"
    text = example.read_text()
    environ = {
        "OPENAI_API_KEY": "o",
        "ANTHROPIC_API_KEY": "a",
        "SUPPORT_DB_URL": "s",
        "BILLING_WEBHOOK_SECRET": "b",
    }
    from_toml = load(text, environ=environ)
    as_json = json.dumps(tomllib.loads(text))
    from_json = load(as_json, environ=environ, name="planner.json")
    assert from_toml.deployments == from_json.deployments  # type: ignore[attr-defined]
    for name, desired in from_toml.deployments.items():  # type: ignore[attr-defined]
        assert desired.managed() == from_json.deployments[name].managed()  # type: ignore[attr-defined]
    assert from_toml.control_plane == from_json.control_plane  # type: ignore[attr-defined]


def test_json_schema_key_is_allowed(load: Load) -> None:
    """A JSON file may name its schema with "$schema" for editors."""
    config = load('{"$schema": "../schemas/config.schema.json"}', name="planner.json")
    assert config.deployments == {}  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(data=broken_configs())
def test_arbitrary_data_is_a_config_error_never_a_crash(data: dict[str, object]) -> None:
    """Whatever the file holds, loading returns a Config or raises ConfigError."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "planner.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        try:
            load_config(path, environ={"A": "1"})
        except ConfigError as error:
            assert error.details or error.message


@settings(max_examples=40, deadline=None)
@given(case=valid_configs())
def test_the_same_data_in_toml_and_json_loads_the_same(case: ConfigCase) -> None:
    """Any valid config written as TOML and as JSON gives the same desired state."""
    with tempfile.TemporaryDirectory() as tmp:
        toml_path, json_path = Path(tmp) / "c.toml", Path(tmp) / "c.json"
        toml_path.write_text(tomli_w.dumps(case.data), encoding="utf-8")
        json_path.write_text(json.dumps(case.data), encoding="utf-8")
        from_toml = load_config(toml_path, environ=case.environ)
        from_json = load_config(json_path, environ=case.environ)
    assert from_toml.deployments == from_json.deployments
    assert from_toml.control_plane == from_json.control_plane
    assert from_toml.warnings == [w.replace("c.json", "c.toml") for w in from_json.warnings]


def test_problems_from_templates_and_overrides_name_their_table(
    write_config: Callable[..., Path],
) -> None:
    """A bad value from a template or an environment override is reported where it was
    written, naming the deployment it ended up in and the environment."""
    path = write_config(
        """
        [templates.docker]
        source = "internal_docker"
        source_config.resource_spec.cpu = 0

        [deployments.api]
        template = "docker"
        source_revision_config.image_uri = "registry.example.com/api:1"
        source_config.resource_spec.max_scale = 1

        [environments.prod.deployments.api.source_config.resource_spec]
        max_scale = -1
        """
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={}, env="prod")
    assert caught.value.message.startswith("planner.toml (environment prod) is invalid")
    details = caught.value.details
    assert any(
        line.startswith("planner.toml: templates.docker.source_config.resource_spec.cpu: ")
        and line.endswith("(in deployment api)")
        for line in details
    ), details
    assert any(
        line.startswith(
            "planner.toml: environments.prod.deployments.api.source_config.resource_spec.max_scale"
        )
        and line.endswith("(in deployment api)")
        for line in details
    ), details
