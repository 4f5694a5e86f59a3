"""Desired state dumps back to file data that loads into the same desired state."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import tomli_w
from hypothesis import HealthCheck, given, settings

from planner.config import Config, load_config
from tests.config.dump import config_to_data, deployment_to_data
from tests.strategies import ConfigCase, valid_configs


def _load_text(directory: Path, name: str, text: str, environ: dict[str, str]) -> Config:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return load_config(path, environ=environ)


def _assert_same(first: Config, second: Config) -> None:
    assert first.control_plane == second.control_plane
    assert first.deployments == second.deployments
    for name, desired in first.deployments.items():
        other = second.deployments[name]
        assert desired.managed() == other.managed()
        assert desired.secret_values() == other.secret_values()
        assert desired.secret_env == other.secret_env
        assert desired.model_fields_set == other.model_fields_set


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=valid_configs())
def test_valid_config_round_trips_toml_models_json_models(case: ConfigCase) -> None:
    """Any valid config: TOML -> models -> JSON -> models gives the same models."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        from_toml = _load_text(directory, "a.toml", tomli_w.dumps(case.data), case.environ)
        dumped = json.dumps(config_to_data(from_toml))
        from_json = _load_text(directory, "b.json", dumped, case.environ)
    _assert_same(from_toml, from_json)


def test_deployment_dump_keeps_env_references(tmp_path: Path) -> None:
    """Env-sourced secrets dump as { env = VAR } (no value); lifecycle only when set."""
    text = (
        '[deployments.api]\nsource = "internal_docker"\n'
        'source_revision_config = { image_uri = "i:1" }\n'
        'secrets = { TOKEN = { env = "API_TOKEN" } }\n'
    )
    config = _load_text(tmp_path, "p.toml", text, {"API_TOKEN": "value"})
    assert deployment_to_data(config.deployments["api"]) == {
        "source": "internal_docker",
        "source_revision_config": {"image_uri": "i:1"},
        "secrets": {"TOKEN": {"env": "API_TOKEN"}},
    }
