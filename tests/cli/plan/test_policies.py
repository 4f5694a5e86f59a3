"""Policies on the plan through the real CLI: a deny is a plan error in every format that
nothing applies, a warn is shown and changes nothing, apply PLANFILE checks again."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import BASE_CONFIG, SECRET_VALUE, Scenario
from tests.cli.plan.test_plan_out import names_on_server

REGISTRY_DENY = """
[policies.company-registry]
expression = '''
!has(deployment.source_revision_config.image_uri) ||
deployment.source_revision_config.image_uri.startsWith('images.corp.example/')'''
message = "images come from images.corp.example only"
"""
SCALE_WARN = """
[policies.small-scale]
expression = '''
!has(deployment.source_config.resource_spec.max_scale) ||
deployment.source_config.resource_spec.max_scale <= 1'''
message = "max_scale above 1 costs money"
severity = "warn"
"""


def test_a_deny_is_a_plan_error_naming_policy_deployment_and_message(scenario: Scenario) -> None:
    """A deny that is false fails the plan (exit 1) with the policy, the deployment and
    the message, in text, markdown and JSON (`policies[]` and `errors[]`)."""
    scenario.write_config(BASE_CONFIG + REGISTRY_DENY)
    text = scenario.plan()
    assert text.code == 1
    assert "worker: denied by policy company-registry: images come from" in text.out
    markdown = scenario.plan("--format", "markdown")
    assert markdown.code == 1 and "[!CAUTION]" in markdown.out
    assert "`worker`: denied by policy company-registry" in markdown.out
    raw = json.loads(scenario.plan("--format", "json").out)
    assert raw["format_version"] == "1.2"
    assert raw["policies"] == [
        {
            "policy": "company-registry",
            "deployment": "worker",
            "severity": "deny",
            "message": "images come from images.corp.example only",
            "error": None,
        }
    ]
    assert [error["name"] for error in raw["errors"]] == ["worker"]


def test_a_denied_plan_is_not_saved_nor_applied(scenario: Scenario) -> None:
    """`plan --out` does not save a denied plan and `apply` sends nothing."""
    scenario.write_config(BASE_CONFIG + REGISTRY_DENY)
    result = scenario.plan("--out", "plan.json")
    assert result.code == 1 and "not saved" in result.err
    assert not (scenario.root / "plan.json").exists()
    applied = scenario.cli("apply", "--auto-approve")
    assert applied.code == 1 and "denied by policy company-registry" in applied.out
    assert names_on_server(scenario) == []


def test_a_warn_is_a_policy_section_and_changes_nothing(scenario: Scenario) -> None:
    """A warn shows in a Policy section (text, markdown) and `policies[]`; the plan has
    no error, is saved, `show` renders the warning, and apply creates everything."""
    scenario.write_config(BASE_CONFIG + SCALE_WARN)
    text = scenario.plan("--out", "plan.json")
    assert text.code == 0, text.err
    assert "Policy: warnings" in text.out
    assert "api: policy small-scale: max_scale above 1 costs money" in text.out
    shown = scenario.cli("show", "plan.json", "--format", "markdown")
    assert "`api`: policy `small-scale`: max_scale above 1 costs money" in shown.out
    raw = json.loads(scenario.cli("show", "plan.json", "--format", "json").out)
    assert [(p["policy"], p["severity"]) for p in raw["policies"]] == [("small-scale", "warn")]
    assert raw["errors"] == []
    assert scenario.cli("apply", "plan.json").code == 0
    assert names_on_server(scenario) == ["api", "worker"]


def test_an_evaluation_error_is_a_deny_whatever_the_severity(scenario: Scenario) -> None:
    """A warn policy whose expression fails on a deployment (a missing key) denies it."""
    scenario.write_config(
        BASE_CONFIG
        + """
[policies.scale-on-everything]
expression = "deployment.source_config.resource_spec.max_scale <= 5"
message = "max_scale at most 5"
severity = "warn"
"""
    )
    raw = json.loads(scenario.plan("--format", "json").out)
    (result,) = raw["policies"]
    assert result["deployment"] == "worker" and result["severity"] == "deny"
    assert "max_scale" in result["error"]
    assert "could not be evaluated" in raw["errors"][0]["message"]


def test_apply_of_a_saved_plan_checks_the_policies_again(scenario: Scenario) -> None:
    """A saved plan that a policy added to the config afterwards denies is refused by
    `apply PLANFILE` before anything is sent."""
    assert scenario.plan("--out", "plan.json").code == 0
    scenario.write_config(BASE_CONFIG + REGISTRY_DENY)
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    assert "a policy of the config denies this saved plan" in result.err
    assert "worker: denied by policy company-registry" in result.err
    assert names_on_server(scenario) == []


def test_unchanged_and_deleted_deployments_are_checked(scenario: Scenario) -> None:
    """Every deployment of the plan is checked: an unchanged one (no_op), and one being
    deleted, whose `deployment` is as the state recorded it."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    keep = """
[policies.keep-named-agents]
expression = "!(change.action in ['delete', 'replace'] && deployment.name in ['worker'])"
message = "worker is never deleted"

[policies.unchanged-seen]
expression = "change.action != 'no_op'"
message = "seen unchanged"
severity = "warn"
"""
    scenario.write_config(BASE_CONFIG + keep)
    raw = json.loads(scenario.plan("--format", "json").out)
    assert {(p["policy"], p["deployment"]) for p in raw["policies"]} == {
        ("unchanged-seen", "api"),
        ("unchanged-seen", "worker"),
    }
    without_worker = BASE_CONFIG.split("[deployments.worker]")[0]
    scenario.write_config(without_worker + keep)
    result = scenario.plan("--format", "json")
    assert result.code == 1
    policies = json.loads(result.out)["policies"]
    found = {(p["policy"], p["deployment"], p["severity"]) for p in policies}
    assert ("keep-named-agents", "worker", "deny") in found
    destroy = scenario.plan("--destroy")
    assert destroy.code == 1 and "worker: denied by policy keep-named-agents" in destroy.out


def test_secret_values_are_not_reachable_from_an_expression(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An expression looking for a secret's value where it could be (the change's fields,
    the live deployment's secrets) never finds it: the plan passes, nothing is shown."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config('API_TOKEN = { env = "API_TOKEN" }', 'API_TOKEN = { env = "NEW_TOKEN" }')
    monkeypatch.setenv("NEW_TOKEN", "another-secret-value")
    values = f"['{SECRET_VALUE}', 'another-secret-value']"
    hunt = f"""
[policies.hunt]
expression = "!change.fields.exists(f, f.after in {values} || f.before in {values})"
message = "a secret value was visible in the change"

[policies.no-live-secrets]
expression = '''
deployment.address != 'api' || !has(live.secrets) && live.secret_names == ['API_TOKEN']'''
message = "the live secrets were visible"
"""
    scenario.write_config(scenario.config_path.read_text() + hunt)
    result = scenario.plan("--format", "json")
    raw = json.loads(result.out)
    api = next(c for c in raw["changes"] if c["name"] == "api")
    assert any(f["path"] == "secrets.API_TOKEN" for f in api["fields"])  # the secret did change
    assert raw["policies"] == [] and result.code == 0
    assert SECRET_VALUE not in result.out + result.err


def test_validate_names_a_policy_that_does_not_compile(scenario: Scenario) -> None:
    """`planner validate` compiles every expression: a syntax error, an unknown input
    and a non-bool result are errors naming their policies (exit 1)."""
    scenario.write_config(
        BASE_CONFIG
        + """
[policies.broken]
expression = "deployment.name =="
message = "m"

[policies.unknown-input]
expression = "deploymnt.name == 'x'"
message = "m"

[policies.not-a-bool]
expression = "1 + 1"
message = "m"
"""
    )
    result = scenario.cli("validate")
    assert result.code == 1
    assert "3 policies do not compile" in result.err
    assert "policies.broken.expression: does not compile: at 1:" in result.err
    assert "policies.unknown-input.expression: does not compile" in result.err
    assert "undeclared reference to 'deploymnt.name'" in result.err
    assert "policies.not-a-bool.expression: does not compile: it gives an int" in result.err
    plan = scenario.plan()
    assert plan.code == 1 and "policies.broken.expression" in plan.err


def test_validate_reports_policy_shape_and_compile_problems_at_once(
    scenario: Scenario,
) -> None:
    """A policy naming environments the config lacks, one naming an undeclared input and
    one with a syntax error: one validate run names all three (exit 1)."""
    scenario.write_config(
        BASE_CONFIG
        + """
[policies.badenv]
expression = "true"
message = "m"
environments = ["prdo"]

[policies.undeclared]
expression = "deploymnt.name == 'x'"
message = "m"

[policies.syntax]
expression = "deployment.name =="
message = "m"
"""
    )
    result = scenario.cli("validate")
    assert result.code == 1
    assert "is invalid (1 problem)" in result.err and "2 policies do not compile" in result.err
    assert "policies.badenv.environments: the config has no [environments]" in result.err
    assert "policies.undeclared.expression: does not compile" in result.err
    assert "policies.syntax.expression: does not compile: at 1:" in result.err


def test_policy_test_evaluates_offline_in_every_environment(scenario: Scenario) -> None:
    """`planner policy test` needs no network (an unreachable URL) nor state: exit 1 on
    a deny, per environment, in text and JSON; exit 0 when only warnings."""
    scenario.write_config(
        """
[control_plane]
base_url = "http://127.0.0.1:9"

[environments.dev]
[environments.prod]

[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "docker.io/acme/worker:1"

[policies.company-registry]
expression = "deployment.source_revision_config.image_uri.startsWith('images.corp.example/')"
message = "images come from images.corp.example only"
environments = ["prod"]

[policies.creates-only]
expression = "change.action == 'create' && live == null"
message = "seen as a create"
"""
    )
    result = scenario.cli("policy", "test")
    assert result.code == 1
    assert "(environment dev): 2 policies on 1 deployment(s)" not in result.out
    assert "(environment dev): 1 policy on 1 deployment(s)\nOK: 0 denied" in result.out
    assert "✗ worker: denied by policy company-registry" in result.out
    dev = scenario.cli("policy", "test", "--env", "dev", "--format", "json")
    assert dev.code == 0
    (run,) = json.loads(dev.out)
    assert run["environment"] == "dev" and run["passed"] is True and run["results"] == []
    assert not (scenario.root / "state").exists()


def test_an_unknown_environment_in_a_policy_is_a_config_error(scenario: Scenario) -> None:
    """A policy naming an environment the config does not have, or a typo in a key, is
    a validate error with "did you mean"."""
    scenario.write_config(
        """
[environments.prod]

[deployments.worker]
source = "internal_docker"
source_revision_config.image_uri = "docker.io/acme/worker:1"

[policies.p]
expression = "true"
mesage = "m"
environments = ["prd"]
"""
    )
    result = scenario.cli("validate")
    assert result.code == 1
    assert "policies.p.mesage: unknown key (did you mean 'message'?)" in result.err
    assert "policies.p.environments[0]: unknown environment 'prd' (did you mean 'prod'?)" in (
        result.err
    )
