"""Deployment views written from stored JSON text: the bytes a JSONResponse of the decoded
values would send, whatever form the text was stored in."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.responses import JSONResponse

from planner.controlplane import lifecycle
from planner.controlplane.rows import RevisionSummary, StoredDeployment
from planner.controlplane.views import deployment_json, iso, page_json

NOW = 1_800_000_100.0
SHA = "a73d531c31e1a76551e5dc1c45b069eb30906be3"


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def legacy(value: Any) -> str:
    """The form files of older releases hold (`json.dumps` defaults)."""
    return json.dumps(value)


def stored(
    source: str, config: Any, revision_config: Any, secrets: Any, form: Any
) -> StoredDeployment:
    return StoredDeployment(
        "d-1",
        "t-1",
        "api",
        'Ünïcode "quoted"',
        source,
        form(config),
        form(revision_config),
        form(secrets),
        form([]),
        "0.1.0",
        "r-1",
        NOW - 100,
        NOW - 50,
        NOW - 99,
        None,
    )


def revision(sha: str | None, created_at: float = NOW - 60) -> RevisionSummary:
    return RevisionSummary("r-1", "git_host", {}, created_at, 1.0, 1.0, None, sha)


def expected(
    row: StoredDeployment, config: Any, revision_config: Any, secrets: Any, sha: Any
) -> bytes:
    """The view as the routes built it before: a dict rendered by JSONResponse."""
    if row.source == "external_docker":
        config = {"deployment_type": "prod", "build_on_push": False, **config}
    if sha:
        revision_config = {**revision_config, "repo_commit_sha": sha}
    view = {
        "id": row.id,
        "tenant_id": row.tenant_id,
        "name": row.name,
        "display_name": row.display_name,
        "source": row.source,
        "source_config": config,
        "source_revision_config": revision_config,
        "secrets": secrets,
        "secret_references": [],
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
        "status": "READY",
        "latest_revision_id": row.latest_revision_id,
        "active_revision_id": "r-1",
        "image_version": row.image_version,
    }
    return bytes(JSONResponse(view).body)


CONFIGS = [
    ("git_host", {"repo_url": "https://g.example.com/a", "build_on_push": False}),
    ("git_host", {}),
    ("external_docker", {"custom_url": "https://a.example.com"}),
    ("external_docker", {}),
    ("external_docker", {"build_on_push": True, "custom_url": "u"}),  # older files only
]
REVISION_CONFIGS = [
    {"repo_ref": "main", "agent_config_path": "a, b: c.json"},
    {"repo_ref": "main", "repo_commit_sha": "given"},
    {},
]
SECRETS = [[], [{"name": "A", "value": 'é \n\t\u0001 \\u0041 "x"'}], [{"name": "B", "value": "1"}]]


@pytest.mark.parametrize("form", [compact, legacy])
@pytest.mark.parametrize(("source", "config"), CONFIGS)
@pytest.mark.parametrize("revision_config", REVISION_CONFIGS)
@pytest.mark.parametrize("secrets", SECRETS)
@pytest.mark.parametrize("sha", [SHA, None])
def test_a_view_is_the_json_response_of_its_values(
    form: Any, source: str, config: Any, revision_config: Any, secrets: Any, sha: str | None
) -> None:
    """Compact or legacy text, escapes or none, defaults and commits spliced in: the same
    bytes as JSONResponse of the decoded values."""
    row = stored(source, config, revision_config, secrets, form)
    text = deployment_json(row, [revision(sha)], NOW)
    assert text.encode() == expected(row, config, revision_config, secrets, sha)


def test_a_page_is_the_json_response_of_its_views() -> None:
    """`{resources, offset}` around views already written."""
    row = stored("git_host", {}, {}, [], compact)
    views = [deployment_json(row, [revision(SHA)], NOW)] * 2
    page = {"resources": [json.loads(v) for v in views], "offset": 7}
    assert page_json(views, 7).encode() == JSONResponse(page).body
    assert page_json([], 0) == '{"resources":[],"offset":0}'


@pytest.mark.parametrize(
    ("source", "config"),
    [
        ("git_host", {"repo_ref": "main"}),
        ("git_host", {"repo_ref": "x-fail-build"}),
        ("git_host", {"repo_ref": "fail-deploy"}),
        ("external_docker", {"image_uri": "r/fail-build:1"}),
        ("internal_docker", {}),
        ("internal_docker", {"image_uri": "r/a:1"}),
        ("internal_source", {"source_tarball_path": "p", "note": "fail-"}),
    ],
)
def test_a_status_config_gives_the_full_configs_status(source: str, config: Any) -> None:
    """What `status_config` keeps of a stored config walks the same statuses."""
    kept = lifecycle.status_config(source, compact(config))
    for offset in (0.0, 0.05, 0.15, 0.5, 1.05, 1.5, 2.5):
        full = lifecycle.RevisionTiming(source, config, NOW, 1.0, 1.0)
        light = lifecycle.RevisionTiming(source, kept, NOW, 1.0, 1.0)
        assert lifecycle.revision_status(light, NOW + offset) == lifecycle.revision_status(
            full, NOW + offset
        )
    reads = source in lifecycle.ARTIFACT_FIELDS or "fail-" in compact(config)
    assert kept == (config if reads else {})
