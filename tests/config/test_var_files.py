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

DOCKER = """
[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:${var.tag}"
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
    """A name the config does not declare is reported at the file that gives it (at --var
    for a --var)."""
    config = Path(write(tmp_path / "planner.toml", CONFIG))
    values = write(tmp_path / "vars.toml", "replcas = 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=given_variables([VarFile(values)]))
    assert caught.value.details == [
        f"{values}: unknown variable 'replcas' (did you mean 'replicas'?)"
    ]
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=GivenVariables({"replcas": "5"}))
    assert "--var.replcas: unknown variable 'replcas'" in caught.value.details[0]


@pytest.mark.parametrize(
    "value", ["1979-05-27", "07:32:00", "1979-05-27T07:32:00Z", "[1979-05-27]", "{ at = 07:32 }"]
)
def test_a_date_or_time_in_a_file_is_an_error_naming_the_file_and_variable(
    tmp_path: Path, value: str
) -> None:
    """A TOML date or time anywhere in a value is refused as the config refuses it, not a
    crash: the message names the file and the variable."""
    path = write(tmp_path / "vars.toml", f"replicas = 3\ntag = {value}\n")
    with pytest.raises(ConfigError) as caught:
        given_variables([VarFile(path)])
    assert caught.value.details == [
        f"{path}: tag: dates and times are not supported; write the value as a string"
    ]


@pytest.mark.parametrize(
    ("declared", "text", "said"),
    [
        ('default = "v1"', "[1, 2]", "[1, 2] is a list, not a string like the default"),
        ('default = "v1"', '{ a = "b" }', '{"a": "b"} is a table, not a string like the default'),
        ('description = "no default"', "[1]", "[1] is a list; a variable without a default"),
        ("default = [1]", '{ a = "b" }', '{"a": "b"} is a table, not a list like the default'),
    ],
)
def test_a_list_or_table_for_a_string_variable_is_a_type_error(
    tmp_path: Path, declared: str, text: str, said: str
) -> None:
    """A list or table in a file for a variable that takes text (a string default, or none)
    is a type error naming the file and the variable, never JSON text inside a string."""
    config = Path(write(tmp_path / "planner.toml", f"[variables.tag]\n{declared}\n" + DOCKER))
    values = write(tmp_path / "vars.toml", f"tag = {text}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=given_variables([VarFile(values)]))
    (detail,) = caught.value.details
    assert detail.startswith(f"{values}: tag: {said}")


def test_a_list_or_table_for_a_variable_of_that_kind_keeps_its_shape(tmp_path: Path) -> None:
    """A table from a file for a table variable is that table (not its JSON text)."""
    text = "[variables.tag]\n[variables.spec]\ndefault = { cpu = 1 }\n" + DOCKER
    text += 'source_config.resource_spec = "${var.spec}"\n'
    config = Path(write(tmp_path / "planner.toml", text))
    values = write(tmp_path / "vars.toml", 'tag = "v2"\nspec = { cpu = 2, memory_mb = 512 }\n')
    loaded = load_config(config, environ={}, variables=given_variables([VarFile(values)]))
    spec = loaded.deployments["worker"].managed()["source_config"]["resource_spec"]
    assert spec == {"cpu": 2, "memory_mb": 512}


def test_a_type_error_from_a_file_names_the_file_with_an_article_that_fits(
    tmp_path: Path,
) -> None:
    """A value of the wrong type in a file is reported at the file (not the config) and
    reads as English ('an int')."""
    config = Path(write(tmp_path / "planner.toml", CONFIG))
    values = write(tmp_path / "vars.toml", 'replicas = "three"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, variables=given_variables([VarFile(values)]))
    assert caught.value.details == [f"{values}: replicas: 'three' is not an int like the default"]
