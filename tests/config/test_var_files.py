"""`--var-file`: variable values read from TOML or JSON files, in command-line order."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.config.loader import load_config
from planner.config.var_files import GivenVariables, VarFile, given_variables, read_var_file
from planner.errors import ConfigError

CONFIG = """
[variables.replicas]
default = 2

[variables.tag]
default = "v1"

[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:${var.tag}"
source_config.resource_spec.max_scale = "${var.replicas}"
"""


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_file_gives_values_as_var_would(tmp_path: Path) -> None:
    """TOML and JSON files give text: strings as written, other values as JSON."""
    toml = write(tmp_path / "a.toml", 'replicas = 3\ntag = "v2"\nflags = [1, true]\n')
    assert read_var_file(Path(toml)) == {"replicas": "3", "tag": "v2", "flags": "[1, true]"}
    json_file = write(tmp_path / "b.json", '{"tag": "v3", "on": false}')
    assert read_var_file(Path(json_file)) == {"tag": "v3", "on": "false"}


def test_var_and_var_file_apply_in_command_line_order(tmp_path: Path) -> None:
    """A later --var or --var-file wins over an earlier one, whichever kind each is."""
    first = write(tmp_path / "first.toml", 'tag = "file-1"\nreplicas = 4\n')
    second = write(tmp_path / "second.json", '{"tag": "file-2"}')
    given = given_variables([("tag", "flag-1"), VarFile(first), ("tag", "flag-2")])
    assert dict(given) == {"tag": "flag-2", "replicas": "4"}
    assert given.files == {"replicas": first}
    given = given_variables([("tag", "flag-1"), VarFile(first), VarFile(second)])
    assert dict(given) == {"tag": "file-2", "replicas": "4"}
    assert given.files == {"tag": second, "replicas": first}


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("missing.toml", None, "missing.toml: variable file not found"),
        ("broken.toml", "tag = [", "broken.toml: invalid TOML"),
        ("broken.json", '{"tag": ', "broken.json"),
        ("list.json", "[1, 2]", "list.json: the top level must be an object"),
        ("vars.tfvars", "tag = 1", "vars.tfvars: unsupported variable file type '.tfvars'"),
    ],
)
def test_a_bad_file_is_an_error_naming_it(
    tmp_path: Path, name: str, text: str | None, said: str
) -> None:
    """A missing, unparsable or misshapen file is a ConfigError naming the file."""
    path = tmp_path / name
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        given_variables([VarFile(str(path))])
    assert said in str(caught.value)


def test_values_resolve_the_config_above_the_environ(tmp_path: Path) -> None:
    """A file's values win over PLANNER_VAR_NAME and the default, typed as the default."""
    config = Path(write(tmp_path / "planner.toml", CONFIG))
    values = write(tmp_path / "vars.toml", 'replicas = 5\ntag = "v9"\n')
    environ = {"PLANNER_VAR_tag": "from-environ", "PLANNER_VAR_replicas": "7"}
    loaded = load_config(config, environ=environ, variables=given_variables([VarFile(values)]))
    worker = loaded.deployments["worker"].managed()
    assert worker["source_revision_config"]["image_uri"].endswith(":v9")
    assert worker["source_config"]["resource_spec"]["max_scale"] == 5
    assert loaded.given_variables == {"replicas": "5", "tag": "v9"}


def test_an_unknown_variable_in_a_file_names_the_file(tmp_path: Path) -> None:
    """A name the config does not declare is reported as --var reports it, with the file."""
    config = Path(write(tmp_path / "planner.toml", CONFIG))
    values = write(tmp_path / "vars.toml", "replcas = 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=given_variables([VarFile(values)]))
    assert caught.value.details == [
        f"{config}: --var-file: {values}: unknown variable 'replcas' (did you mean 'replicas'?)"
    ]
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=GivenVariables({"replcas": "5"}))
    assert "--var.replcas: unknown variable 'replcas'" in caught.value.details[0]
