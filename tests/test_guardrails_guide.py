"""The ready-to-copy policies of docs/guides/guardrails.md and examples/policies/ work:
each snippet loads, compiles, passes a deployment that keeps the rule and denies one that
breaks it; the example config validates, passes `policy test` and plans."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from planner.cli.main import main
from planner.config.desired import DesiredDeployment
from planner.config.models import Policy, PolicySpec
from planner.plan.model import Action, Change
from planner.plan.policies import Subject, compile_policies, evaluate
from planner.state.records import RecordedDeployment

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guides" / "guardrails.md"
EXAMPLE = ROOT / "examples" / "policies" / "planner.toml"
FENCE = re.compile(r"```toml\n(.*?)```", re.S)


def guide_policies() -> dict[str, Policy]:
    """Every complete `[policies.NAME]` block of the guide."""
    found = {}
    for block in FENCE.findall(GUIDE.read_text(encoding="utf-8")):
        for name, table in tomllib.loads(block).get("policies", {}).items():
            spec = PolicySpec.model_validate(table)
            found[name] = Policy(name, spec.expression, spec.message, str(spec.severity))
    return found


def want(**body: Any) -> DesiredDeployment:
    base: dict[str, Any] = {"name": "support-agent", "source": "internal_docker"}
    return DesiredDeployment.model_validate(base | body)


SCALE = {"source_config": {"resource_spec": {"max_scale": 10}}}
TOO_BIG = {"source_config": {"resource_spec": {"max_scale": 11}}}
GIT = {"source": "git_host", "source_config": {"deployment_type": "prod"}}
DEV_FREE = {"source": "git_host", "source_config": {"deployment_type": "dev_free"}}
OK_IMAGE = {"source_revision_config": {"image_uri": "registry.example.com/acme/a:1"}}
BAD_IMAGE = {"source_revision_config": {"image_uri": "docker.io/acme/a:1"}}
ENV_SECRET = {"secrets": {"K": SecretStr("v")}, "secret_env": {"K": "K_VAR"}}
LITERAL_SECRET = {"secrets": {"K": SecretStr("v")}}
PROTECTED = RecordedDeployment(name="support-agent", id="d", protect=True)
UNPROTECTED = RecordedDeployment(name="other-agent", id="d")

# policy -> (environment, a subject that passes, a subject that is denied)
CASES: dict[str, tuple[str, Subject, Subject]] = {
    "prod-is-protected": (
        "prod",
        Subject("a", None, want(lifecycle={"protect": True}), None, None),
        Subject("a", None, want(), None, None),
    ),
    "max-scale-capped": (
        "prod",
        Subject("a", None, want(**SCALE), None, None),
        Subject("a", None, want(**TOO_BIG), None, None),
    ),
    "no-dev-free-in-prod": (
        "prod",
        Subject("a", None, want(**GIT), None, None),
        Subject("a", None, want(**DEV_FREE), None, None),
    ),
    "keep-protected-agents": (
        "prod",
        Subject("other-agent", Change(name="o", action=Action.DELETE), None, UNPROTECTED, None),
        Subject("support-agent", Change(name="s", action=Action.DELETE), None, PROTECTED, None),
    ),
    "company-registry-only": (
        "dev",
        Subject("a", None, want(**OK_IMAGE), None, None),
        Subject("a", None, want(**BAD_IMAGE), None, None),
    ),
    "secrets-from-environment": (
        "dev",
        Subject("a", None, want(**ENV_SECRET), None, None),
        Subject("a", None, want(**LITERAL_SECRET), None, None),
    ),
}


def test_the_guide_has_the_six_policies() -> None:
    """The guide's blocks are exactly the six policies the tests check."""
    assert set(guide_policies()) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_guide_policy_passes_and_denies(name: str) -> None:
    """The policy compiles, passes the deployment that keeps it, denies the other."""
    compiled = compile_policies([guide_policies()[name]], str(GUIDE))
    environment, passing, failing = CASES[name]
    assert evaluate(compiled, [passing], environment) == []
    (result,) = evaluate(compiled, [failing], environment)
    assert (result.policy, result.severity, result.error) == (name, "deny", None)


def test_the_example_holds_the_guide_policies() -> None:
    """examples/policies/planner.toml carries the guide's policies word for word."""
    example = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))["policies"]
    for name, policy in guide_policies().items():
        assert example[name]["expression"] == policy.expression, name


def test_the_example_validates_passes_and_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate and `policy test` pass in both environments; a plan of each has no
    error and no denial; breaking a rule in a copy makes the plan fail naming it."""
    monkeypatch.setenv("PLANNER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for variable in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID", "PLANNER_ENV"):
        monkeypatch.delenv(variable, raising=False)
    config = tmp_path / "planner.toml"
    config.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["validate", "-c", str(config)]) == 0
    assert main(["policy", "test", "-c", str(config)]) == 0
    for env in ("dev", "prod"):
        capsys.readouterr()
        assert main(["plan", "-c", str(config), "--env", env, "--format", "json"]) == 0
        raw = json.loads(capsys.readouterr().out)
        assert raw["errors"] == [] and raw["summary"]["create"] == 2
    text = config.read_text(encoding="utf-8").replace("registry.example.com/acme", "docker.io")
    config.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["plan", "-c", str(config), "--env", "dev"]) == 1
    assert "hello-agent: denied by policy company-registry-only" in capsys.readouterr().out
