"""Every file in examples/ is a valid config (with the environment it documents)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api.rules import Mode
from planner.config import load_config

EXAMPLES = Path(__file__).parents[2] / "examples"
ENVIRON = {
    "OPENAI_API_KEY": "sk-test",
    "ANTHROPIC_API_KEY": "sk-ant-test",
    "SUPPORT_DB_URL": "postgres://support",
    "BILLING_WEBHOOK_SECRET": "whsec",
    "OPS_PAGER_TOKEN": "pager",
}


def _examples() -> list[Path]:
    return sorted(EXAMPLES.glob("*.toml")) + sorted(EXAMPLES.glob("*.json"))


def test_the_expected_examples_exist() -> None:
    """quickstart, fleet, self-hosted and a JSON example are shipped."""
    names = {path.name for path in _examples()}
    assert {"quickstart.toml", "fleet.toml", "self-hosted.toml", "quickstart.json"} <= names


@pytest.mark.parametrize("path", _examples(), ids=lambda path: path.name)
def test_example_is_valid(path: Path) -> None:
    """Each example loads without problems and declares at least one deployment."""
    config = load_config(path, environ=ENVIRON)
    assert config.deployments


def test_quickstart_needs_no_environment_and_no_endpoint() -> None:
    """The quickstart runs anywhere: no env secrets, no URL (embedded), no warnings."""
    config = load_config(EXAMPLES / "quickstart.toml", environ={})
    assert config.control_plane.base_url is None
    assert config.mode is Mode.CLOUD
    assert config.warnings == []
    support = config.deployments["support-agent"].managed()
    assert support["source_config"]["integration_id"] == "9a0e7c55-0000-4000-8000-00000000a001"
    assert support["source_config"]["repo_url"] == "https://git.example.com/acme/support-agent"


def test_quickstart_json_matches_the_toml() -> None:
    """The JSON example is the quickstart in JSON: same desired state."""
    from_toml = load_config(EXAMPLES / "quickstart.toml", environ={})
    from_json = load_config(EXAMPLES / "quickstart.json", environ={})
    assert from_toml.deployments == from_json.deployments


def test_self_hosted_example_targets_self_hosted() -> None:
    """The self-hosted example is external_docker with listener and secret references."""
    config = load_config(EXAMPLES / "self-hosted.toml", environ=ENVIRON)
    assert config.mode is Mode.SELF_HOSTED
    ops = config.deployments["ops-agent"]
    assert ops.source == "external_docker"
    assert ops.secret_references and len(ops.secret_references) == 2
    assert ops.secret_env == {"PAGER_TOKEN": "OPS_PAGER_TOKEN"}


def test_fleet_example_uses_defaults_secrets_and_lifecycle() -> None:
    """The fleet example exercises defaults, env secrets, protect and ignore_changes."""
    config = load_config(EXAMPLES / "fleet.toml", environ=ENVIRON)
    assert len(config.deployments) >= 3
    support = config.deployments["support-agent"]
    assert support.lifecycle.protect is True
    assert support.lifecycle.ignore_changes == ("source_config.resource_spec.max_scale",)
    assert support.secret_env["OPENAI_API_KEY"] == "OPENAI_API_KEY"  # from [defaults]
    spec = support.managed()["source_config"]["resource_spec"]
    assert spec["labels"] == {"team": "support", "cost-center": "ai-platform"}


def test_annotated_example_in_the_docs_is_valid(tmp_path: Path) -> None:
    """The complete annotated example of the config guide (docs/) loads without problems."""
    guide = (EXAMPLES.parent / "docs" / "guides" / "config.md").read_text(encoding="utf-8")
    section = guide.split("## A complete annotated example", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "planner.toml"
    path.write_text(block, encoding="utf-8")
    config = load_config(path, environ=ENVIRON)
    spec = config.deployments["support-agent"].managed()["source_config"]["resource_spec"]
    assert spec["labels"] == {"team": "agents", "tier": "gold"}


FLEET = EXAMPLES / "fleet"


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_fleet_example_loads_in_every_environment(env: str) -> None:
    """examples/fleet: 20 agents in every environment, plus the dev-only canary in dev."""
    config = load_config(FLEET / "planner.toml", environ={}, env=env)
    assert len(config.deployments) == (21 if env == "dev" else 20)
    assert len((FLEET / "planner.toml").read_text().splitlines()) <= 150


def test_fleet_example_prod_matches_its_expected_rendering(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`planner config --env prod` prints exactly examples/fleet/expected-prod.toml."""
    from planner.cli.main import main

    monkeypatch.chdir(FLEET)
    monkeypatch.delenv("PLANNER_VAR_image_tag", raising=False)
    monkeypatch.delenv("PLANNER_VAR_repo_ref", raising=False)
    assert main(["config", "--env", "prod"]) == 0
    assert capsys.readouterr().out == (FLEET / "expected-prod.toml").read_text()
