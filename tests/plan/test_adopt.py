"""The config generated for adopted deployments (`planner.plan.adopt`, pure)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from planner.api.models import Deployment
from planner.plan.adopt import adoptable, duplicate_names, generated_config

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def deployment(name: str, **fields: Any) -> Deployment:
    body = {
        "id": f"id-{name}",
        "tenant_id": "t",
        "name": name,
        "source": "internal_docker",
        "created_at": NOW,
        "updated_at": NOW,
        "status": "READY",
        "latest_revision_id": "r1",
        **fields,
    }
    return Deployment.model_validate(body)


def test_shared_fields_move_to_defaults_and_read_only_ones_are_left_out() -> None:
    """A resource_spec value all set alike goes to [defaults] (only those); no read-only."""
    spec = {"resource_spec": {"cpu": 0.5, "max_scale": 2}, "deployment_type": "prod"}
    a = deployment(
        "a",
        source_config={**spec, "resource_spec": {"cpu": 0.5, "max_scale": 3}},
        source_revision_config={"image_uri": "r/a:1", "repo_commit_sha": "abc"},
    )
    b = deployment("b", source_config=spec, source_revision_config={"image_uri": "r/b:1"})
    generated = generated_config([b, a])
    assert generated.defaults == {"source_config": {"resource_spec": {"cpu": 0.5}}}
    assert list(generated.deployments) == ["a", "b"]
    assert generated.deployments["a"] == {
        "source": "internal_docker",
        "source_config": {"deployment_type": "prod", "resource_spec": {"max_scale": 3}},
        "source_revision_config": {"image_uri": "r/a:1"},
    }


def test_one_deployment_has_no_defaults() -> None:
    """With a single deployment everything stays in its own table."""
    generated = generated_config(
        [deployment("a", source="git_host", source_config={"build_on_push": False})]
    )
    assert generated.defaults == {}
    assert generated.deployments["a"]["source_config"] == {"build_on_push": False}


def test_defaults_a_read_echoes_for_a_source_that_may_not_set_them_are_left_out() -> None:
    """An external_docker read carries deployment_type and build_on_push (the service's
    defaults); a config declaring them would be refused, so adoption leaves them out."""
    docker = deployment(
        "d",
        source="external_docker",
        source_config={"deployment_type": "prod", "build_on_push": False, "custom_url": "u"},
        source_revision_config={"image_uri": "r/d:1"},
    )
    assert generated_config([docker]).deployments["d"]["source_config"] == {"custom_url": "u"}


def test_secrets_become_env_references_shared_only_when_values_match() -> None:
    """A secret with one value everywhere reads its own name; differing ones are per deployment."""
    a = deployment(
        "api-a", secrets=[{"name": "TOKEN", "value": "s3cr3t"}, {"name": "K", "value": "1"}]
    )
    b = deployment("b", secrets=[{"name": "TOKEN", "value": "s3cr3t"}, {"name": "K", "value": "2"}])
    generated = generated_config([a, b])
    assert generated.deployments["api-a"]["secrets"] == {
        "K": {"env": "API_A_K"},
        "TOKEN": {"env": "TOKEN"},
    }
    assert generated.deployments["b"]["secrets"]["K"] == {"env": "B_K"}
    assert generated.variables == ["API_A_K", "B_K", "TOKEN"]
    assert generated.environ == {"API_A_K": "1", "B_K": "2", "TOKEN": "s3cr3t"}
    assert "s3cr3t" not in repr(generated)


def test_adoptable_filters_names_and_duplicates_are_found() -> None:
    """--name-contains narrows the list; a name held twice is reported."""
    found = [deployment("api"), deployment("worker"), deployment("api")]
    assert [d.name for d in adoptable(found, "work")] == ["worker"]
    assert len(adoptable(found, None)) == 3
    assert duplicate_names(found) == ["api"]
