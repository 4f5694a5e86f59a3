"""The create body of the OpenAPI document says what the server's rules accept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner.api.rules import NAME_PATTERN, Mode
from planner.controlplane.app import create_app
from planner.controlplane.create_schema import variant_name
from planner.controlplane.openapi import build_openapi
from planner.controlplane.settings import ServerSettings


def schemas_of(tmp_path: Path, mode: Mode) -> dict[str, Any]:
    app = create_app(ServerSettings(db_path=tmp_path / "schema.db", mode=mode))
    try:
        return dict(build_openapi(app)["components"]["schemas"])
    finally:
        app.state.store.close()


@pytest.mark.parametrize(
    ("mode", "sources"),
    [
        (Mode.CLOUD, ["git_host", "internal_docker", "internal_source", "internal_template"]),
        (Mode.SELF_HOSTED, ["external_docker"]),
    ],
)
def test_create_is_one_variant_per_source_of_the_mode(
    tmp_path: Path, mode: Mode, sources: list[str]
) -> None:
    """DeploymentCreate is a oneOf over the mode's sources, discriminated by `source`."""
    create = schemas_of(tmp_path, mode)["DeploymentCreate"]
    assert create["discriminator"]["propertyName"] == "source"
    assert sorted(create["discriminator"]["mapping"]) == sources


def test_git_host_variant_requires_its_fields_and_nulls_foreign_ones(tmp_path: Path) -> None:
    """git_host needs integration_id, repo_url, repo_ref, agent_config_path; image_uri is null."""
    variant = schemas_of(tmp_path, Mode.CLOUD)[variant_name("git_host")]
    config = variant["properties"]["source_config"]
    revision = variant["properties"]["source_revision_config"]
    assert set(variant["required"]) >= {"name", "source", "source_config"}
    assert config["required"] == ["integration_id", "repo_url"]
    assert config["properties"]["integration_id"] == {
        "type": "string",
        "format": "uuid",
        "minLength": 1,
    }
    assert config["properties"]["listener_id"] == {"type": "null"}
    assert revision["required"] == ["agent_config_path", "repo_ref"]
    assert revision["properties"]["image_uri"] == {"type": "null"}
    assert variant["not"]["properties"]["source_config"]["properties"]["build_on_push"] == {
        "const": True
    }


def test_internal_variants_require_nothing_and_refuse_secret_references(tmp_path: Path) -> None:
    """internal_* creates may be empty (filled by a later PATCH); secret_references stay empty."""
    variant = schemas_of(tmp_path, Mode.CLOUD)[variant_name("internal_docker")]
    assert variant["required"] == ["name", "source"]
    assert variant["properties"]["name"]["pattern"] == NAME_PATTERN
    assert variant["properties"]["secret_references"] == {
        "anyOf": [{"type": "array", "maxItems": 0}, {"type": "null"}]
    }
