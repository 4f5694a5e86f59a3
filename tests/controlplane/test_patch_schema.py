"""The PATCH body and the free-form values of the OpenAPI document say what the server
accepts: a body the document refuses is refused (422), one it accepts is not a 422."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from planner.api.rules import Mode
from planner.api.values import MAX_STRING_LENGTH
from planner.controlplane.patch_schema import variant_name
from tests.controlplane.core_fixtures import control_plane, git_host_body
from tests.controlplane.test_create_schema import schemas_of

pytestmark = pytest.mark.anyio
HUGE = 2**70  # past 64 bits: SQLite cannot store it


def is_valid(schemas: dict[str, Any], component: str, body: Any) -> bool:
    """Whether `body` is valid against the document's `component` as a request body: a
    `readOnly` property is not sent (OpenAPI), so it is refused here, as schemathesis does."""
    document = {
        "$ref": f"#/components/schemas/{component}",
        "components": {"schemas": without_read_only(schemas)},
    }
    return bool(jsonschema_rs.Draft202012Validator(document).is_valid(body))


def without_read_only(node: Any) -> Any:
    """NODE with every `readOnly` property schema replaced by `false` (never valid)."""
    if isinstance(node, list):
        return [without_read_only(item) for item in node]
    if not isinstance(node, dict):
        return node
    copied = {key: without_read_only(value) for key, value in node.items()}
    properties = copied.get("properties")
    if isinstance(properties, dict):
        copied["properties"] = {
            key: False if isinstance(value, dict) and value.get("readOnly") else value
            for key, value in properties.items()
        }
    return copied


@pytest.mark.parametrize(
    ("mode", "sources"),
    [
        (Mode.CLOUD, ["git_host", "internal_docker", "internal_source", "internal_template"]),
        (Mode.SELF_HOSTED, ["external_docker"]),
    ],
)
def test_patch_is_an_any_of_per_source_of_the_mode(
    tmp_path: Path, mode: Mode, sources: list[str]
) -> None:
    """PatchBody is an anyOf (a PATCH may omit `source`) over the mode's sources, each
    nulling the fields of the others."""
    schemas = schemas_of(tmp_path, mode)
    refs = [branch["$ref"].rsplit("/", 1)[1] for branch in schemas["PatchBody"]["anyOf"]]
    assert refs == [variant_name(source) for source in sources]
    variant = schemas[variant_name(sources[0])]["properties"]
    revision = variant["source_revision_config"]["anyOf"][0]["properties"]
    assert revision["source_tarball_path"] == {"type": "null"}
    assert "required" not in variant["source_revision_config"]["anyOf"][0]


BODIES: list[tuple[str, dict[str, Any], bool]] = [
    ("one source's fields", {"source_revision_config": {"image_uri": "img:2"}}, True),
    ("the deployment's own fields", {"source_config": {"build_on_push": True}}, True),
    (
        "two sources' fields",
        {"source_config": {"build_on_push": True}, "source_revision_config": {"image_uri": "i"}},
        False,
    ),
    ("a source of the other mode", {"source": "external_docker"}, False),
    (
        "a field of another source than the body's",
        {"source": "internal_docker", "source_config": {"repo_url": "https://x"}},
        False,
    ),
    ("a small integer in labels", {"source_config": {"resource_spec": {"labels": {"a": 7}}}}, True),
    (
        "a >64-bit integer in labels",
        {"source_config": {"resource_spec": {"labels": {"a": [{"b": HUGE}]}}}},
        False,
    ),
]


@pytest.mark.parametrize(("body", "valid"), [b[1:] for b in BODIES], ids=[b[0] for b in BODIES])
async def test_the_document_and_the_server_agree_on_a_patch(
    tmp_path: Path, body: dict[str, Any], valid: bool
) -> None:
    """A PATCH of a git_host deployment is schema-valid exactly when the server does not
    answer 422 (a conflict with the stored deployment is a 409, never a 422)."""
    schemas = schemas_of(tmp_path, Mode.CLOUD)
    assert is_valid(schemas, "PatchBody", body) is valid
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        response = await cp.client.patch(f"/v2/deployments/{created['id']}", json=body)
    assert (response.status_code != 422) is valid, response.text
    assert response.status_code in ((200, 409) if valid else (422,))


@pytest.mark.parametrize(
    "body",
    [
        {"name": "other"},
        {"source": "git_host"},
        {"source_config": {"repo_url": "https://elsewhere"}},
        {"source_config": {"deployment_type": "dev"}},
    ],
)
async def test_unmodifiable_fields_are_read_only_in_a_patch(
    tmp_path: Path, body: dict[str, Any]
) -> None:
    """name, source and the immutable fields are readOnly in the PATCH body (a schema-valid
    PATCH never carries them); sent with another value, the server answers 400."""
    schemas = schemas_of(tmp_path, Mode.CLOUD)
    assert not is_valid(schemas, "PatchBody", body)
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        response = await cp.client.patch(f"/v2/deployments/{created['id']}", json=body)
    assert response.status_code == (200 if body == {"source": "git_host"} else 400), response.text


async def test_a_required_field_is_never_emptied_by_a_schema_valid_patch(tmp_path: Path) -> None:
    """A field its source requires is non-empty in the PATCH variant; "" is refused (409:
    the merged deployment would lack it)."""
    schemas = schemas_of(tmp_path, Mode.CLOUD)
    body = {"source_revision_config": {"agent_config_path": ""}}
    assert not is_valid(schemas, variant_name("git_host"), body)
    assert is_valid(schemas, variant_name("internal_source"), body)
    async with control_plane(tmp_path) as cp:
        created = await cp.create(git_host_body())
        response = await cp.client.patch(f"/v2/deployments/{created['id']}", json=body)
    assert response.status_code == 409, response.text


def test_free_form_values_are_bounded_json(tmp_path: Path) -> None:
    """Every free-form object's values are `JsonValue`: numbers within 64-bit integer bounds
    (floats too: the server refuses 1e19 as well), strings within the string limit."""
    schemas = schemas_of(tmp_path, Mode.CLOUD)
    assert is_valid(schemas, "JsonValue", {"a": [1, 2.5, "x", None, True, {"b": -(2**63)}]})
    for value in (HUGE, [2**63], {"a": {"b": -(2**63) - 1}}, 1e19, "x" * (MAX_STRING_LENGTH + 1)):
        assert not is_valid(schemas, "JsonValue", value)
    envfrom = schemas["Container"]["properties"]["envFrom"]["anyOf"][0]["items"]
    assert envfrom["additionalProperties"] == {"$ref": "#/components/schemas/JsonValue"}
