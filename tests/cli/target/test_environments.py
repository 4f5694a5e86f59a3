"""One config, several environments: --env / PLANNER_ENV, --var, one state per environment."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Scenario

ENVIRONMENTS = """
[variables.tag]
default = "1.0.0"

[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:${var.tag}"

[deployments.canary]
source = "internal_docker"
environments = ["dev"]
source_revision_config.image_uri = "registry.example.com/acme/canary:${env}"

[deployments.api]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/api:1"
secrets = { API_TOKEN = { env = "MISSING_TOKEN" } }
environments = ["prod"]

[environments.dev]
variables = { tag = "2.0.0" }

[environments.prod]
"""


@pytest.fixture
def fleet(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    monkeypatch.delenv("PLANNER_ENV", raising=False)
    monkeypatch.delenv("MISSING_TOKEN", raising=False)
    scenario.write_config(ENVIRONMENTS)
    return scenario


def test_each_environment_applies_to_its_own_state(fleet: Scenario) -> None:
    """apply --env dev writes state/planner.dev.state.json with dev's deployments and values."""
    result = fleet.cli("apply", "--env", "dev", "--auto-approve")
    assert result.code == 0, result.err
    state = json.loads((fleet.root / "state" / "planner.dev.state.json").read_text())
    assert sorted(state["deployments"]) == ["canary", "worker"]
    assert not fleet.state_path.exists()
    plan = fleet.plan("--env", "dev", "--format", "json")
    assert plan.code == 0 and json.loads(plan.out)["summary"]["create"] == 0


def test_var_and_planner_env_pick_values_and_environment(
    fleet: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLANNER_ENV stands for --env; --var overrides the environment's value."""
    monkeypatch.setenv("PLANNER_ENV", "dev")
    result = fleet.plan("--var", "tag=3.1.4")
    assert result.code == 0, result.err
    assert "worker:3.1.4" in result.out and "canary:dev" in result.out


def test_an_environment_is_required_and_refused_without_environments(fleet: Scenario) -> None:
    """Without --env the error lists the environments; a plain config refuses --env."""
    result = fleet.plan()
    assert result.code == 1
    assert "has environments (dev, prod); choose one" in result.err
    fleet.write_config(ENVIRONMENTS.split("[environments.dev]")[0].replace("environments = ", "#"))
    result = fleet.plan("--env", "dev")
    assert result.code == 1 and "--env dev cannot be used" in result.err


def test_bad_var_syntax_is_a_usage_error(fleet: Scenario) -> None:
    """--var without '=' is refused by the argument parser (exit 1)."""
    with pytest.raises(SystemExit) as exited:
        fleet.cli("plan", "--env", "dev", "--var", "tag")
    assert exited.value.code == 1
    assert "expected NAME=VALUE, not 'tag'" in fleet.capsys.readouterr().err


def test_validate_checks_every_environment_without_secret_values(fleet: Scenario) -> None:
    """validate covers dev and prod; an unset secret variable is a note, not an error."""
    result = fleet.cli("validate")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "OK: planner.toml is valid in environment dev (2 deployments)",
        "OK: planner.toml is valid in environment prod (2 deployments)",
    ]
    assert "Note: environment variable MISSING_TOKEN is not set" in result.err
    only = fleet.cli("validate", "--env", "prod")
    assert only.out == "OK: planner.toml is valid in environment prod (2 deployments)\n"


def test_validate_reports_problems_of_every_environment(fleet: Scenario) -> None:
    """A problem in one environment fails validate and names that environment."""
    fleet.edit_config("[environments.prod]", '[environments.prod]\nvariables = { tga = "1" }')
    fleet.edit_config("[environments.dev]", '[environments.dev]\ncontrol_plane = { mode = "x" }')
    result = fleet.cli("validate")
    assert result.code == 1
    assert "(environment prod) is invalid" in result.err
    assert "environments.prod.variables.tga: unknown variable 'tga' (did you mean 'tag'?)" in (
        result.err
    )
    assert "control_plane.mode" in result.err


def test_plan_names_config_and_environment_in_every_format(fleet: Scenario) -> None:
    """Text header, markdown marker and heading, and the JSON `environment` key."""
    text = fleet.plan("--env", "dev")
    assert text.out.startswith("Config: planner.toml, environment: dev\n")
    markdown = fleet.plan("--env", "dev", "--format", "markdown").out
    assert markdown.startswith(
        "<!-- planner-plan: planner.toml#dev -->\n### Plan: `planner.toml` (environment `dev`)\n"
    )
    plan = json.loads(fleet.plan("--env", "dev", "--format", "json").out)
    assert (plan["config"], plan["environment"]) == ("planner.toml", "dev")


def test_a_saved_plan_applies_to_its_environment_only(fleet: Scenario) -> None:
    """apply PLANFILE uses the plan's environment and refuses another one."""
    assert fleet.plan("--env", "dev", "--out", "dev.plan").code == 0
    refused = fleet.cli("apply", "--env", "prod", "--auto-approve", "dev.plan")
    assert refused.code == 1
    assert "the plan was made for environment dev, not prod" in refused.err
    applied = fleet.cli("apply", "--auto-approve", "dev.plan")
    assert applied.code == 0, applied.err
    assert (fleet.root / "state" / "planner.dev.state.json").exists()


def test_validate_shows_a_shared_problem_once(fleet: Scenario) -> None:
    """A bad value outside the environment tables fails each environment but prints once."""
    fleet.edit_config("worker:${var.tag}", "worker:${var.tga}")
    result = fleet.cli("validate")
    assert result.code == 1
    assert result.err.count("unknown variable 'tga' (did you mean 'tag'?)") == 1


def test_state_commands_use_the_environment_state(fleet: Scenario) -> None:
    """state list reads the environment's state, and asks for one when none is chosen."""
    assert fleet.cli("apply", "--env", "dev", "--auto-approve").code == 0
    listed = fleet.cli("state", "list", "--env", "dev")
    assert listed.code == 0, listed.err
    assert "canary" in listed.out and "worker" in listed.out
    refused = fleet.cli("state", "list")
    assert refused.code == 1 and "choose one" in refused.err


def test_a_saved_plan_applies_only_with_the_variables_it_was_made_with(
    fleet: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--var and PLANNER_VAR_NAME at plan time are recorded as keyed digests: apply must be
    given the same values (another value, or none, makes the plan stale, naming the
    variable, never its value)."""
    assert fleet.plan("--env", "dev", "--var", "tag=3.0.0", "--out", "dev.plan").code == 0
    assert "3.0.0" not in (fleet.root / "dev.plan").read_text().split('"saved"')[1]
    refused = fleet.cli("apply", "dev.plan", "--var", "tag=4.0.0", "--auto-approve")
    assert refused.code == 1
    assert "stale: the variable tag has another value than at plan time" in refused.err
    assert "4.0.0" not in refused.err and "3.0.0" not in refused.err
    missing = fleet.cli("apply", "dev.plan", "--auto-approve")
    assert missing.code == 1 and "the variable tag was given at plan time, not now" in missing.err
    applied = fleet.cli("apply", "dev.plan", "--var", "tag=3.0.0", "--auto-approve")
    assert applied.code == 0, applied.err
    state = json.loads((fleet.root / "state" / "planner.dev.state.json").read_text())
    image = state["deployments"]["worker"]["managed"]["source_revision_config"]["image_uri"]
    assert image.endswith(":3.0.0")
    monkeypatch.setenv("PLANNER_VAR_tag", "5.0.0")
    assert fleet.plan("--env", "dev", "--out", "env.plan").code == 0
    applied = fleet.cli("apply", "env.plan", "--auto-approve")
    assert applied.code == 0, applied.err
    assert fleet.plan("--env", "dev", "--detailed-exitcode").code == 0


def worker_image(fleet: Scenario, *argv: str) -> str:
    plan = json.loads(fleet.plan("--env", "dev", "--format", "json", *argv).out)
    worker = next(c for c in plan["changes"] if c["name"] == "worker")
    image: str = worker["after"]["source_revision_config"]["image_uri"]
    return image.rsplit(":", 1)[1]


def test_var_file_precedence_is_terraforms(
    fleet: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """default < [environments.E.variables] < PLANNER_VAR_NAME < --var-file and --var, in
    command-line order."""
    (fleet.root / "a.toml").write_text('tag = "from-a"\n')
    (fleet.root / "b.json").write_text('{"tag": "from-b"}')
    assert worker_image(fleet) == "2.0.0"  # the environment's value over the default
    monkeypatch.setenv("PLANNER_VAR_tag", "from-environ")
    assert worker_image(fleet) == "from-environ"
    assert worker_image(fleet, "--var-file", "a.toml") == "from-a"
    assert worker_image(fleet, "--var-file", "a.toml", "--var-file", "b.json") == "from-b"
    assert worker_image(fleet, "--var-file", "a.toml", "--var", "tag=flag") == "flag"
    assert worker_image(fleet, "--var", "tag=flag", "--var-file", "a.toml") == "from-a"


def test_var_file_is_taken_by_every_command_that_takes_var(fleet: Scenario) -> None:
    """validate, config, plan, apply and the state commands read --var-file; a bad one is
    an error naming the file."""
    (fleet.root / "vars.toml").write_text('tga = "x"\n')
    for argv in (("validate",), ("config",), ("plan",), ("apply", "--auto-approve")):
        result = fleet.cli(*argv, "--env", "dev", "--var-file", "vars.toml")
        assert result.code == 1, argv
        assert "vars.toml: unknown variable 'tga' (did you mean 'tag'?)" in result.err, argv
    # state commands resolve the same target (variables included): the file is named too
    listed = fleet.cli("state", "list", "--env", "dev", "--var-file", "vars.toml")
    assert listed.code == 1 and "vars.toml: unknown variable 'tga'" in listed.err
    missing = fleet.cli("plan", "--env", "dev", "--var-file", "nope.json")
    assert missing.code == 1 and "nope.json: variable file not found" in missing.err


def test_a_saved_plan_records_var_file_values_as_digests(fleet: Scenario) -> None:
    """Values from --var-file are recorded like --var, as keyed digests (a value may be a
    secret): a file giving another value at apply time is refused, the same file applies."""
    (fleet.root / "vars.toml").write_text('tag = "6.0.0"\n')
    assert fleet.plan("--env", "dev", "--var-file", "vars.toml", "--out", "dev.plan").code == 0
    saved = json.loads((fleet.root / "dev.plan").read_text())
    (recorded,) = saved["saved"]["variables"].values()
    assert list(saved["saved"]["variables"]) == ["tag"] and recorded.startswith("hmac-sha256:")
    (fleet.root / "vars.toml").write_text('tag = "7.0.0"\n')
    refused = fleet.cli("apply", "dev.plan", "--var-file", "vars.toml", "--auto-approve")
    assert refused.code == 1
    assert "the variable tag has another value than at plan time" in refused.err
    (fleet.root / "vars.toml").write_text('tag = "6.0.0"\n')
    applied = fleet.cli("apply", "dev.plan", "--var-file", "vars.toml", "--auto-approve")
    assert applied.code == 0, applied.err
    state = json.loads((fleet.root / "state" / "planner.dev.state.json").read_text())
    image = state["deployments"]["worker"]["managed"]["source_revision_config"]["image_uri"]
    assert image.endswith(":6.0.0")


def test_an_environment_name_that_is_a_path_is_a_config_error(scenario: Scenario) -> None:
    """`[environments."../../../outside"]` is refused by validate and apply; no state is
    written anywhere."""
    scenario.write_config(ENVIRONMENTS.replace("[environments.prod]", '[environments."../x"]'))
    for argv in (("validate",), ("apply", "--env", "../x", "--auto-approve")):
        result = scenario.cli(*argv)
        assert result.code == 1
        assert 'environments."../x": must be a plain name' in result.err
    assert not list(scenario.root.rglob("*.state.json"))


def test_a_state_name_with_dots_that_climb_is_a_config_error(scenario: Scenario) -> None:
    """`[state] name = "a..b"` is a config error naming state.name."""
    scenario.write_config('[state]\nname = "team..x"\n' + ENVIRONMENTS)
    result = scenario.cli("plan", "--env", "dev")
    assert result.code == 1
    assert "state.name: must be a plain name" in result.err
