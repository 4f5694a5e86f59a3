"""Secrets: `{ env = "VAR" }` from the environment, literals with a warning, valid names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planner.config import load_config
from planner.config.diagnostics import Problem
from planner.config.secret_values import NotingMissing, missing_variables_hint, resolve_secrets
from planner.errors import ConfigError

ProblemsOf = Callable[..., list[str]]
SECRET_VALUE = "s3cr3t-value-never-printed"


def test_env_secret_resolves_from_the_given_environment(
    load: Callable[..., object], docker_api: str
) -> None:
    """An env reference takes its value from `environ` and records the variable."""
    text = docker_api + '[deployments.api.secrets]\nTOKEN = { env = "API_TOKEN" }\n'
    config = load(text, environ={"API_TOKEN": SECRET_VALUE})
    desired = config.deployments["api"]  # type: ignore[attr-defined]
    assert desired.secret_values() == {"TOKEN": SECRET_VALUE}
    assert desired.secret_env == {"TOKEN": "API_TOKEN"}
    assert config.warnings == []  # type: ignore[attr-defined]


def test_missing_env_variable_names_variable_and_deployment(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """A missing variable is an error naming the variable and the deployment."""
    text = docker_api + '[deployments.api.secrets]\nTOKEN = { env = "API_TOKEN" }\n'
    assert problems_of(text, environ={"OTHER": "x"}) == [
        "planner.toml: deployments.api.secrets.TOKEN: "
        "environment variable API_TOKEN is not set (secret of deployment api)"
    ]


def test_an_env_variable_that_is_not_utf8_names_the_variable_not_its_value(
    load: Callable[..., object], docker_api: str
) -> None:
    """Bytes that are not UTF-8 in a secret's variable (os.environ keeps them as surrogate
    escapes) are an error naming the variable and the deployment, never the value, with
    the variable in the hint."""
    text = docker_api + '[deployments.api.secrets]\nTOKEN = { env = "API_TOKEN" }\n'
    value = b"s3cr3t-\xff-value".decode("utf-8", "surrogateescape")
    with pytest.raises(ConfigError) as caught:
        load(text, environ={"API_TOKEN": value})
    assert caught.value.details == [
        "planner.toml: deployments.api.secrets.TOKEN: environment variable API_TOKEN is not "
        "valid UTF-8 (secret of deployment api); its value is not shown"
    ]
    assert caught.value.hint is not None and "API_TOKEN" in caught.value.hint
    assert "s3cr3t" not in str(caught.value) + caught.value.hint


def test_literal_secret_warns_without_the_value(
    load: Callable[..., object], docker_api: str
) -> None:
    """A literal value is accepted with a warning that never contains the value."""
    config = load(docker_api + f'[deployments.api.secrets]\nTOKEN = "{SECRET_VALUE}"\n')
    warnings = config.warnings  # type: ignore[attr-defined]
    assert len(warnings) == 1
    assert warnings[0].startswith("planner.toml: deployments.api.secrets.TOKEN: secret value")
    assert SECRET_VALUE not in warnings[0]
    assert config.deployments["api"].secret_values() == {"TOKEN": SECRET_VALUE}  # type: ignore[attr-defined]


def test_secret_values_stay_out_of_reprs(load: Callable[..., object], docker_api: str) -> None:
    """The desired deployment's repr masks secret values."""
    config = load(docker_api + f'[deployments.api.secrets]\nTOKEN = "{SECRET_VALUE}"\n')
    assert SECRET_VALUE not in repr(config)


@pytest.mark.parametrize("name", ["1TOKEN", "MY-TOKEN", "MY TOKEN", "TÖKEN", ""])
def test_secret_names_must_be_env_var_names(
    problems_of: ProblemsOf, docker_api: str, name: str
) -> None:
    """Secret names must match ^[A-Za-z_][A-Za-z0-9_]*$."""
    problems = problems_of(docker_api + f'[deployments.api.secrets]\n"{name}" = "x"\n')
    assert len(problems) == 1
    assert "secret name must be a valid environment variable name" in problems[0]


def test_secret_names_are_case_sensitive(load: Callable[..., object], docker_api: str) -> None:
    """TOKEN and token are two different secrets."""
    config = load(docker_api + '[deployments.api.secrets]\nTOKEN = "a"\ntoken = "b"\n')
    assert set(config.deployments["api"].secrets) == {"TOKEN", "token"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("value", ["3", "true", "{ env = 3 }", "{}", '{ env = "" }', "[1]"])
def test_secret_value_must_be_string_or_env_reference(
    problems_of: ProblemsOf, docker_api: str, value: str
) -> None:
    """Anything but a string or { env = "VAR" } is rejected with the accepted forms."""
    problems = problems_of(docker_api + f"[deployments.api.secrets]\nTOKEN = {value}\n")
    assert problems == [
        'planner.toml: deployments.api.secrets.TOKEN: must be a string or { env = "VARIABLE" }'
    ]


def test_without_environ_only_forms_are_checked() -> None:
    """For [defaults], variables are not looked up (each deployment does that)."""
    resolved = resolve_secrets(
        {"A": {"env": "NOT_SET"}, "B": "lit"}, deployment="", loc=(), environ=None
    )
    assert resolved.problems == []
    assert resolved.literal_names == ["B"]


def test_default_env_secret_missing_is_reported_per_deployment(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """An env secret from [defaults] with its variable missing names each deployment."""
    text = '[defaults.secrets]\nTOKEN = { env = "API_TOKEN" }\n' + docker_api
    assert problems_of(text) == [
        "planner.toml: deployments.api.secrets.TOKEN: environment variable API_TOKEN is not set "
        "(secret of deployment api) (set in [defaults])"
    ]


TOKEN_VARIABLE = '[variables.token]\ndefault = "from-the-file"\n'


@pytest.mark.parametrize(
    ("overrides", "environ", "origin"),
    [
        ({"token": SECRET_VALUE}, {}, "from --var token;"),
        (
            {},
            {"PLANNER_VAR_token": SECRET_VALUE},
            "from the environment variable PLANNER_VAR_token;",
        ),
        ({}, {}, "from the default of variables.token in the config file;"),
    ],
)
def test_a_secret_from_a_variable_names_where_its_value_came_from(
    write_config: Callable[..., Path],
    docker_api: str,
    overrides: dict[str, str],
    environ: dict[str, str],
    origin: str,
) -> None:
    """A secret set to `${var.token}` warns naming the variable's source (--var, its
    environment variable, the file's default), never "written in the config file" for a
    value that is not, and never the value itself."""
    text = TOKEN_VARIABLE + docker_api + '[deployments.api.secrets]\nTOKEN = "${var.token}"\n'
    path = write_config(text)
    config = load_config(path, environ=environ, variables=overrides)
    assert len(config.warnings) == 1
    warning = config.warnings[0]
    assert warning.startswith(f"planner.toml: deployments.api.secrets.TOKEN: secret value {origin}")
    assert SECRET_VALUE not in warning


def test_a_default_secret_from_a_variable_names_it_too(
    write_config: Callable[..., Path], docker_api: str
) -> None:
    """The same for a secret of [defaults], with its `--var` named."""
    text = TOKEN_VARIABLE + '[defaults.secrets]\nLEVEL = "${var.token}"\n' + docker_api
    config = load_config(write_config(text), environ={}, variables={"token": "debug"})
    assert config.warnings == [
        "planner.toml: defaults.secrets.LEVEL: secret value from --var token; "
        'prefer LEVEL = { env = "LEVEL" } to read it from the environment'
    ]


def test_default_literal_secret_warns_once(load: Callable[..., object], docker_api: str) -> None:
    """A literal secret in [defaults] warns once, at its place in [defaults]."""
    text = '[defaults.secrets]\nLEVEL = "info"\n' + docker_api + docker_api.replace("api", "web")
    config = load(text)
    assert [w.split(": ")[1] for w in config.warnings] == ["defaults.secrets.LEVEL"]  # type: ignore[attr-defined]


def test_noting_missing_reads_unset_variables_as_placeholders() -> None:
    """Every name is present (unset ones read as '' and are remembered); get sees only real."""
    environ = NotingMissing({"SET": "1"})
    assert "UNSET" in environ and environ["UNSET"] == "" and environ["SET"] == "1"
    environ["UNSET"]
    assert environ.missing == ["UNSET"]
    assert environ.get("UNSET") is None and environ.get("SET") == "1"
    assert list(environ) == ["SET"] and len(environ) == 1


def test_the_hint_names_each_missing_variable_once() -> None:
    """Variables missing for several deployments are listed once, sorted; other problems
    keep the general hint after them."""
    problems = [
        *resolve_secrets({"A": {"env": "TOKEN"}}, deployment="x", loc=(), environ={}).problems,
        *resolve_secrets(
            {"A": {"env": "TOKEN"}, "B": {"env": "KEY"}}, deployment="y", loc=(), environ={}
        ).problems,
    ]
    assert (
        missing_variables_hint(problems, "fix it") == "set these environment variables: KEY TOKEN"
    )
    mixed = [*problems, Problem(("deployments",), "must be a table")]
    assert missing_variables_hint(mixed, "fix it").endswith("KEY TOKEN; fix it")
    assert missing_variables_hint(mixed[-1:], "fix it") == "fix it"


def test_a_secret_from_an_environments_variables_names_that_table(
    write_config: Callable[..., Path], docker_api: str
) -> None:
    """A `${var.token}` set by `[environments.dev.variables]` names that table."""
    text = (
        TOKEN_VARIABLE
        + docker_api
        + '[deployments.api.secrets]\nTOKEN = "${var.token}"\n'
        + '[environments.dev]\nvariables = { token = "dev-value" }\n'
    )
    config = load_config(write_config(text), environ={}, env="dev")
    assert [w.split("; ")[0] for w in config.warnings] == [
        "planner.toml: deployments.api.secrets.TOKEN: secret value from "
        "environments.dev.variables.token in the config file"
    ]


def test_validate_s_environ_does_not_claim_an_unset_planner_var(
    write_config: Callable[..., Path], docker_api: str
) -> None:
    """`validate` and `promote` load with an environ in which every name reads as set
    (NotingMissing): a `${var.token}` from `[environments.staging.variables]` names that
    table, not an environment variable PLANNER_VAR_token that is not set."""
    text = (
        TOKEN_VARIABLE
        + docker_api
        + '[deployments.api.secrets]\nTOKEN = "${var.token}"\n'
        + '[environments.staging]\nvariables = { token = "staging-value" }\n'
    )
    path = write_config(text)
    sources = {
        "environments.staging.variables.token in the config file": {},
        "the environment variable PLANNER_VAR_token": {"PLANNER_VAR_token": "set-value"},
    }
    for source, environ in sources.items():
        config = load_config(path, environ=NotingMissing(environ), env="staging")
        assert [w.split("; ")[0] for w in config.warnings] == [
            f"planner.toml: deployments.api.secrets.TOKEN: secret value from {source}"
        ]
