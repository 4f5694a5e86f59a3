"""`name = "..."` in a deployment, and where a value from an environment is said to come from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from planner.config import load_config
from planner.errors import ConfigError
from planner.plan.body import create_request_body
from tests.config.conftest import Loader, ProblemsOf

DOCKER = """
[deployments.{key}]
{extra}
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/x:1"
"""


def docker(key: str, extra: str = "") -> str:
    return DOCKER.format(key=key, extra=extra)


def test_a_remote_name_is_managed_and_sent_while_the_address_stays(load: Loader) -> None:
    """The table key stays the address; `name` is what the API is sent and compares."""
    config = load(docker("support", 'name = "support-blue"'))
    desired = config.deployments["support"]
    assert desired.name == "support"
    assert desired.api_name == "support-blue"
    assert desired.managed()["name"] == "support-blue"
    assert create_request_body(desired)["name"] == "support-blue"


def test_without_a_remote_name_nothing_changes(load: Loader) -> None:
    """A deployment without `name` is named by its key and `name` stays unmanaged."""
    desired = load(docker("support")).deployments["support"]
    assert desired.api_name == "support"
    assert "name" not in desired.managed()


def test_a_remote_name_can_use_the_environment(write_config: Callable[..., Path]) -> None:
    """`${env}` in `name` gives each environment its own remote name."""
    text = (
        docker("support", 'name = "support-${env}"') + "[environments.dev]\n[environments.prod]\n"
    )
    path = write_config(text)
    names = {
        env: load_config(path, environ={}, env=env).deployments["support"].api_name
        for env in ("dev", "prod")
    }
    assert names == {"dev": "support-dev", "prod": "support-prod"}


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('name = "Bad_Name"', "deployments.support.name: deployment name 'Bad_Name' must be"),
        ("name = 3", "deployments.support.name: must be a string"),
    ],
)
def test_a_bad_remote_name_is_reported_at_its_key(
    problems_of: ProblemsOf, extra: str, expected: str
) -> None:
    """The API's name rule applies to `name`, reported at `deployments.N.name`."""
    problems = problems_of(docker("support", extra))
    assert any(expected in line for line in problems), problems


def test_two_deployments_cannot_share_a_remote_name(problems_of: ProblemsOf) -> None:
    """A `name` equal to another deployment's name is an error naming both."""
    problems = problems_of(docker("a", 'name = "b"') + docker("b"))
    assert any("deployments.b: 'b' is also the name of deployment a" in p for p in problems)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("defaults", "unknown key: only a [deployments.<name>] table can give"),
        ("templates.base", "a template cannot set 'name'"),
    ],
)
def test_only_a_deployment_table_can_give_a_remote_name(
    problems_of: ProblemsOf, table: str, message: str
) -> None:
    """`name` in [defaults] or a template would name many deployments alike: refused."""
    picks = 'template = "base"' if table.startswith("templates") else ""
    problems = problems_of(f'[{table}]\nname = "x"\n' + docker("a", picks))
    assert any(f"{table}.name: {message}" in p for p in problems), problems


def test_a_bad_value_from_environment_defaults_names_that_table(
    write_config: Callable[..., Path],
) -> None:
    """A default set in [environments.E.defaults] is reported as set there, not [defaults]."""
    text = docker("a") + (
        "[defaults.source_config.resource_spec]\nmax_scale = 2\n"
        "[environments.dev]\ndefaults.source_config.resource_spec = { min_scale = 3 }\n"
    )
    path = write_config(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={}, env="dev")
    assert caught.value.details == [
        f"{path.name}: deployments.a.source_config.resource_spec.min_scale: must not be greater "
        "than max_scale (3 > 2) (set in [environments.dev.defaults])"
    ]
