"""`planner config`: the resolved config of one environment, secrets masked."""

from __future__ import annotations

import json
import tomllib

import pytest

from tests.cli.conftest import SECRET_VALUE, Scenario
from tests.cli.target.test_environments import ENVIRONMENTS


def test_prints_one_environment_resolved_as_toml(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--env dev: variables filled in, dev-only deployments present, a header naming both."""
    monkeypatch.delenv("MISSING_TOKEN", raising=False)
    scenario.write_config(ENVIRONMENTS)
    result = scenario.cli("config", "--env", "dev")
    assert result.code == 0, result.err
    assert result.out.startswith("# planner.toml, environment dev: resolved, secrets masked\n")
    data = tomllib.loads(result.out)
    assert sorted(data["deployments"]) == ["canary", "worker"]
    image = data["deployments"]["worker"]["source_revision_config"]["image_uri"]
    assert image.endswith(":2.0.0")
    prod = json.loads(scenario.cli("config", "--env", "prod", "--format", "json").out)
    assert prod["deployments"]["api"]["secrets"] == {"API_TOKEN": {"env": "MISSING_TOKEN"}}


def test_defaults_merged_and_literal_secrets_masked(scenario: Scenario) -> None:
    """Without environments: [defaults] merged, lifecycle shown, a literal secret masked."""
    scenario.edit_config('API_TOKEN = { env = "API_TOKEN" }', f'API_TOKEN = "{SECRET_VALUE}"')
    scenario.edit_config(
        "[deployments.worker]\n", "[deployments.worker]\nlifecycle.protect = true\n"
    )
    result = scenario.cli("config", "--format", "json")
    assert result.code == 0, result.err
    assert SECRET_VALUE not in result.out
    api = json.loads(result.out)["deployments"]["api"]
    assert api["secrets"] == {"API_TOKEN": "(sensitive)"}
    assert json.loads(result.out)["deployments"]["worker"]["lifecycle"] == {"protect": True}
    assert api["source_config"]["resource_spec"] == {"cpu": 0.5, "memory_mb": 512, "max_scale": 2}
