"""The policy engine: compiling, the inputs an expression sees (never a secret value),
results of deny, warn and failed evaluations, and deletes seen as last recorded."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import SecretStr

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment, Lifecycle
from planner.config.models import Policy
from planner.errors import ConfigError
from planner.plan.changes import build_create
from planner.plan.model import Action, Change, FieldChange, Plan
from planner.plan.policies import (
    Subject,
    check_desired,
    check_plan_policies,
    compile_policies,
    evaluate,
    inputs_of,
)
from planner.state.records import RecordedDeployment

SECRET = "sk-secret-value-never-visible"
INPUTS = frozenset({"deployment", "change", "live", "environment"})


def desired(name: str = "api", **overrides: Any) -> DesiredDeployment:
    body: dict[str, Any] = {
        "name": name,
        "source": "internal_docker",
        "source_revision_config": {"image_uri": "registry.example.com/a:1"},
        "secrets": {"TOKEN": SecretStr(SECRET), "LOG": SecretStr("literal")},
        "secret_env": {"TOKEN": "TOKEN_VAR"},
        **overrides,
    }
    return DesiredDeployment.model_validate(body)


def live(name: str = "api") -> Deployment:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Deployment.model_validate(
        {
            "id": "d-1",
            "tenant_id": "t",
            "name": name,
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "registry.example.com/a:0"},
            "secrets": [{"name": "TOKEN", "value": SECRET}],
            "created_at": now,
            "updated_at": now,
            "status": "READY",
        }
    )


def policy(expression: str, severity: str = "deny", name: str = "p") -> Policy:
    return Policy(name=name, expression=expression, message=f"{name} failed", severity=severity)


def strings_in(value: Any) -> list[str]:
    """Every string anywhere in VALUE (keys and values)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *strings_in(v)]]
    if isinstance(value, list):
        return [s for item in value for s in strings_in(item)]
    return [value] if isinstance(value, str) else []


def test_no_input_holds_a_secret_value() -> None:
    """deployment, change and live of a deployment with secrets hold no secret value
    anywhere: names, env variable names and `(sensitive)` only."""
    want = desired()
    change = build_create(want, b"k", [])
    subject = Subject("api", change, want, None, live())
    data = inputs_of(subject, "prod", INPUTS)
    assert SECRET not in strings_in(data) and "literal" not in strings_in(data)
    assert data["deployment"]["secret_names"] == ["LOG", "TOKEN"]
    assert data["deployment"]["secret_env"] == {"TOKEN": "TOKEN_VAR"}
    assert data["live"]["secret_names"] == ["TOKEN"] and "secrets" not in data["live"]
    secret_fields = [f for f in data["change"]["fields"] if f["path"].startswith("secrets")]
    assert {f["after"] for f in secret_fields} == {"(sensitive)"}


def test_an_expression_reaching_for_live_secrets_fails_and_denies() -> None:
    """`live.secrets` does not exist: the evaluation fails, which is a deny."""
    (compiled,) = compile_policies([policy("size(live.secrets) >= 0", "warn")], "f")
    subject = Subject("api", None, desired(), None, live())
    (result,) = evaluate([compiled], [subject], None)
    assert result.severity == "deny" and result.error is not None and "secrets" in result.error


def test_inputs_an_expression_does_not_name_are_not_built() -> None:
    """Only what the policies read is built: the others are null."""
    subject = Subject("api", None, desired(), None, live())
    data = inputs_of(subject, None, frozenset({"change"}))
    assert data["deployment"] is None and data["live"] is None
    assert data["change"] == {"action": "no_op", "fields": []}


def test_deny_warn_and_pass_results() -> None:
    """A false deny and a false warn are listed with their severity; a pass is not."""
    compiled = compile_policies(
        [
            policy("deployment.address == 'web'", name="deny-it"),
            policy("deployment.address == 'web'", "warn", name="warn-it"),
            policy("deployment.source == 'internal_docker'", name="passes"),
        ],
        "f",
    )
    results = evaluate(compiled, [Subject("api", None, desired(), None, None)], None)
    assert [(r.policy, r.severity, r.error) for r in results] == [
        ("deny-it", "deny", None),
        ("warn-it", "warn", None),
    ]


def test_a_result_that_is_not_a_bool_is_a_failed_evaluation() -> None:
    """A dynamic expression giving a string fails (a deny), saying what it gave."""
    (compiled,) = compile_policies([policy("deployment.source", "warn")], "f")
    (result,) = evaluate([compiled], [Subject("api", None, desired(), None, None)], None)
    assert result.severity == "deny" and result.error == "it gave a string, not true or false"


def test_compile_errors_name_every_policy() -> None:
    """One ConfigError lists each policy that does not compile, by its config path."""
    with pytest.raises(ConfigError) as raised:
        compile_policies([policy("(", name="a"), policy("'x'", name="b"), policy("true")], "c.toml")
    assert raised.value.message == "c.toml: 2 policies do not compile"
    assert raised.value.details[0].startswith("c.toml: policies.a.expression: does not compile")
    assert "it gives a string, not true or false" in raised.value.details[1]
    with pytest.raises(ConfigError, match="1 policy does not compile"):
        compile_policies([policy("nope")], "c.toml")


def test_a_deleted_deployment_is_seen_as_recorded() -> None:
    """A delete's `deployment` is the state's record: remote name, source, recorded
    fields, secret names and the protection as last applied."""
    recorded = RecordedDeployment(
        name="billing",
        id="d-1",
        managed={"name": "billing-prod", "source": "git_host", "source_config": {"a": 1}},
        secret_digests={"KEY": "hmac-sha256:x"},
        protect=True,
    )
    plan = Plan(changes=[Change(name="billing", action=Action.DELETE)])
    compiled = compile_policies(
        [policy("!(change.action == 'delete' && deployment.lifecycle.protect)", name="keep")],
        "f",
    )
    checked = check_plan_policies(
        plan,
        compiled,
        desired={},
        recorded={"billing": recorded},
        observed={},
        environment="prod",
    )
    assert [r.policy for r in checked.policies] == ["keep"]
    assert checked.errors[0].name == "billing"
    assert "denied by policy keep: keep failed" in checked.errors[0].message
    data = inputs_of(Subject("billing", None, None, recorded, None), None, INPUTS)
    assert data["deployment"] == {
        "name": "billing-prod",
        "address": "billing",
        "source": "git_host",
        "source_config": {"a": 1},
        "source_revision_config": {},
        "secret_names": ["KEY"],
        "secret_env": {},
        "secret_references": [],
        "lifecycle": {"protect": True, "ignore_changes": [], "create_before_destroy": False},
    }


def test_a_refresh_only_plan_is_not_checked() -> None:
    """A refresh-only plan changes no deployment: no policy runs on it."""
    plan = Plan(mode="refresh-only", changes=[Change(name="api", action=Action.NO_OP)])
    compiled = compile_policies([policy("false")], "f")
    checked = check_plan_policies(
        plan, compiled, desired={"api": desired()}, recorded={}, observed={}, environment=None
    )
    assert checked == plan


def test_change_fields_and_the_environment_are_inputs() -> None:
    """`change.fields[]` carry path, class, before and after; `environment` its name."""
    field = FieldChange.model_validate(
        {"path": "source_config.resource_spec.max_scale", "class": "new-revision"}
        | {"before": 2, "after": 20}
    )
    change = Change(name="api", action=Action.NEW_REVISION, fields=[field])
    rule = "environment == 'prod' && change.fields.all(f, f.path != 'x' && f.after <= 10)"
    compiled = compile_policies([policy(rule)], "f")
    subject = Subject("api", change, desired(), None, live())
    (result,) = evaluate(compiled, [subject], "prod")
    assert result.severity == "deny" and result.error is None
    assert evaluate(compiled, [subject.__class__("api", None, desired(), None, None)], "prod") == []


def test_policy_test_sees_each_deployment_as_a_create() -> None:
    """`check_desired`: `change.action` is create and `live` is null, for each deployment."""
    compiled = compile_policies([policy("change.action == 'create' && live == null")], "f")
    protected = desired("web", lifecycle=Lifecycle(protect=True))
    assert check_desired(compiled, {"api": desired(), "web": protected}, None) == []
    compiled = compile_policies([policy("deployment.lifecycle.protect", name="prot")], "f")
    results = check_desired(compiled, {"api": desired(), "web": protected}, None)
    assert [r.deployment for r in results] == ["api"]


class RaisingProgram:
    """A CEL program whose runtime raises (the library's way to fail on an input)."""

    def eval(self, activation: Any) -> Any:
        raise RuntimeError("INTERNAL: the runtime failed")


def test_a_runtime_that_raises_is_a_deny_and_no_policy_no_result() -> None:
    """An evaluation that raises is a failed evaluation (a deny); no policy: no result."""
    (compiled,) = compile_policies([policy("true", "warn")], "f")
    raising = dataclasses.replace(compiled, program=RaisingProgram())
    (result,) = evaluate([raising], [Subject("api", None, desired(), None, None)], None)
    assert (result.severity, result.error) == ("deny", "INTERNAL: the runtime failed")
    assert evaluate([], [Subject("api", None, desired(), None, None)], None) == []


@pytest.mark.parametrize(("expression", "said"), [("1", "an int"), ("'x'", "a string")])
def test_a_compile_error_names_the_type_with_its_article(expression: str, said: str) -> None:
    """An expression of another type than bool says what it gives in English ('an int')."""
    with pytest.raises(ConfigError) as raised:
        compile_policies([policy(expression)], "c.toml")
    assert f"it gives {said}, not true or false" in raised.value.details[0]
