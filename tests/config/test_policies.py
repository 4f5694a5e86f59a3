"""`[policies.NAME]` in the config: defaults, the environments each applies in, and
every problem at once with its path and a "did you mean"."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.config import load_config
from planner.config.models import Policy
from planner.config.policies import well_formed_policies
from planner.errors import ConfigError

HEAD = """
[environments.dev]
[environments.prod]

[deployments.api]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/a:1"
"""


def load(tmp_path: Path, text: str, env: str | None = "prod") -> tuple[Policy, ...]:
    path = tmp_path / "planner.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_config(path, environ={}, env=env).policies


def problems(tmp_path: Path, text: str, env: str | None = "prod") -> list[str]:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, text, env)
    return [line.split(": ", 1)[1] for line in raised.value.details]


def test_policies_of_an_environment_in_file_order(tmp_path: Path) -> None:
    """Severity defaults to deny; a policy with `environments` applies only there."""
    text = (
        HEAD
        + """
[policies.b-everywhere]
expression = "true"
message = "m"

[policies.a-prod]
expression = "false"
message = "n"
severity = "warn"
environments = ["prod"]
"""
    )
    prod = load(tmp_path, text, "prod")
    assert prod == (
        Policy("b-everywhere", "true", "m", "deny"),
        Policy("a-prod", "false", "n", "warn"),
    )
    assert [p.name for p in load(tmp_path, text, "dev")] == ["b-everywhere"]


def test_a_config_without_policies_has_none(tmp_path: Path) -> None:
    """No `[policies]`: an empty tuple (nothing compiled, nothing evaluated)."""
    assert load(tmp_path, HEAD) == ()


def test_every_problem_of_a_policy_table_at_once(tmp_path: Path) -> None:
    """Unknown keys, missing and mistyped values, unknown environments, bad names."""
    found = problems(
        tmp_path,
        HEAD
        + """
[policies.p]
expresion = "true"
severity = "block"
environments = ["prd", "dev"]

[policies."bad name"]
expression = "true"
message = "m"

[policies.q]
expression = ""
message = 1
""",
    )
    assert found == [
        "policies.p.expresion: unknown key (did you mean 'expression'?)",
        "policies.p.expression: required",
        "policies.p.message: required",
        "policies.p.severity: must be 'deny' or 'warn'",
        "policies.p.environments[0]: unknown environment 'prd' (did you mean 'prod'?)",
        "policies.\"bad name\": a policy name is letters, digits, '-' and '_'",
        "policies.q.expression: must not be empty",
        "policies.q.message: must be a string",
    ]


def test_policies_must_be_tables(tmp_path: Path) -> None:
    """`policies` and each policy are tables."""
    assert problems(tmp_path, 'policies = "x"\n' + HEAD) == [
        "policies: must be a table of policies by name"
    ]
    assert problems(tmp_path, HEAD + "[policies]\np = 1\n") == ["policies.p: must be a table"]


def test_environments_without_environments_in_the_config(tmp_path: Path) -> None:
    """A policy naming environments in a config that has none is an error."""
    text = """
[deployments.api]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/a:1"

[policies.p]
expression = "true"
message = "m"
environments = ["prod"]
"""
    assert problems(tmp_path, text, env=None) == [
        "policies.p.environments: the config has no [environments] to choose from"
    ]


def test_planner_config_prints_the_policies_of_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`planner config --env E` prints the policies that apply in E, and its output
    loads back as a config with the same policies."""
    path = tmp_path / "planner.toml"
    path.write_text(
        HEAD
        + """
[policies.everywhere]
expression = "true"
message = "m"

[policies.dev-only]
expression = "false"
message = "n"
severity = "warn"
environments = ["dev"]
""",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["config", "-c", str(path), "--env", "prod"]) == 0
    printed = tmp_path / "printed.toml"
    printed.write_text(capsys.readouterr().out, encoding="utf-8")
    policies = load_config(printed, environ={}).policies
    assert policies == (Policy("everywhere", "true", "m", "deny"),)


def test_well_formed_policies_leave_out_the_invalid_ones_whatever_else_is_wrong() -> None:
    """The policies whose tables are valid, in ENV, while another policy and a deployment
    are invalid: what validate compiles beside the config's problems."""
    data = {
        "deployments": {"api": {"source": "nope"}},
        "policies": {
            "badenv": {"expression": "true", "message": "m", "environments": ["prdo"]},
            "ok": {"expression": "x ==", "message": "m"},
            "bad-key": {"expression": "true", "message": "m", "mesage": "m"},
        },
    }
    assert well_formed_policies(data, None) == (Policy("ok", "x ==", "m", "deny"),)
