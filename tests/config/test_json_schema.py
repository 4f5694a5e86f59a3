"""The config's JSON Schema matches what the loader accepts, for editors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from planner.api.models import ResourceSpec
from planner.api.vocabulary import service_path
from planner.config.checks import ignorable_paths
from planner.config.json_schema import SCHEMA_DIALECT, config_schema


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


def test_schema_header_names_dialect_and_title() -> None:
    """The schema declares its dialect, a title and a description."""
    schema = config_schema()
    assert schema["$schema"] == SCHEMA_DIALECT
    assert schema["title"] == "planner config"
    assert "docs/guides/config.md" in schema["description"]
    assert set(schema["properties"]) == {
        "$schema",
        "control_plane",
        "defaults",
        "deployments",
        "variables",
        "templates",
        "environments",
        "state",
        "policies",
    }


def test_every_model_object_forbids_unknown_keys() -> None:
    """Every object with declared properties sets additionalProperties: false."""
    for node in _objects(config_schema()):
        if "properties" in node or "patternProperties" in node:
            assert node.get("additionalProperties") is False, node.get("title")


def test_free_form_objects_stay_open() -> None:
    """Labels and other free-form objects accept any key."""
    labels = config_schema()["$defs"]["ResourceSpec"]["properties"]["labels"]
    assert labels["type"] == "object"
    assert labels.get("additionalProperties", True) is not False


def test_no_null_is_allowed_anywhere() -> None:
    """The loader rejects nulls, so the schema offers none."""
    for node in _objects(config_schema()):
        assert node.get("type") != "null"
        assert not ("default" in node and node["default"] is None)


def test_response_only_and_secret_fields_are_absent() -> None:
    """repo_commit_sha is not configurable and [control_plane] has no key field."""
    defs = config_schema()["$defs"]
    assert "repo_commit_sha" not in defs["SourceRevisionConfig"]["properties"]
    assert set(defs["ControlPlaneConfig"]["properties"]) == {
        "base_url",
        "tenant_id",
        "mode",
        "dialect",
    }


def test_resource_numbers_are_bounded_like_the_loader() -> None:
    """CPU values are > 0, every other number >= 0."""
    props = config_schema()["$defs"]["ResourceSpec"]["properties"]
    assert props["cpu"]["exclusiveMinimum"] == 0
    assert props["queue_cpu_limit"]["exclusiveMinimum"] == 0
    assert props["memory_mb"]["minimum"] == 0
    assert props["min_scale"]["minimum"] == 0
    assert all("description" in props[name] for name in ResourceSpec.model_fields)


def test_names_and_ignore_changes_are_spelled_out() -> None:
    """Deployment and secret names carry their patterns; ignore_changes lists its paths,
    in either dialect's words."""
    schema = config_schema()
    deployments = schema["properties"]["deployments"]
    assert list(deployments["patternProperties"]) == ["^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"]
    assert deployments["propertyNames"] == {"maxLength": 63}
    secrets = schema["$defs"]["DeploymentTable"]["properties"]["secrets"]
    assert list(secrets["patternProperties"]) == ["^[A-Za-z_][A-Za-z0-9_]*$"]
    items = schema["$defs"]["Lifecycle"]["properties"]["ignore_changes"]["items"]
    paths = ignorable_paths()
    assert items == {"enum": sorted({*paths, *map(service_path, paths)})}


def test_environments_templates_and_variables_are_described() -> None:
    """Editors complete the new tables: environments, templates, variables and their keys."""
    defs = config_schema()["$defs"]
    assert set(defs["EnvironmentSpec"]["properties"]) == {
        "control_plane",
        "variables",
        "defaults",
        "deployments",
    }
    assert set(defs["VariableSpec"]["properties"]) == {"default", "description"}
    assert {"template", "environments"} <= set(defs["DeploymentTable"]["properties"])
    assert "source" not in defs["DeploymentTable"].get("required", [])
