"""Per-source rules reject fields of other sources and demand what a source needs."""

from __future__ import annotations

from typing import Any

import pytest

from planner.api.models import ResourceSpec
from planner.api.rules import (
    NAME_MAX_LENGTH,
    Mode,
    check_mode,
    check_name,
    check_resource_spec,
    check_source_rules,
)


def test_external_docker_forbids_agent_config_path_and_deployment_type() -> None:
    """external_docker rejects agent_config_path and deployment_type, naming each field."""
    body = {
        "source_config": {"deployment_type": "prod"},
        "source_revision_config": {"image_uri": "img:1", "agent_config_path": "a.json"},
    }
    locs = {loc for loc, _ in check_source_rules(body, "external_docker", require_complete=True)}
    assert locs == {
        ("source_config", "deployment_type"),
        ("source_revision_config", "agent_config_path"),
    }


def test_git_host_requires_its_fields_and_untagged_build_on_push() -> None:
    """git_host needs integration, repo, ref and config path; a tag ref forbids build_on_push."""
    body = {
        "source_config": {"build_on_push": True},
        "source_revision_config": {"repo_ref": "refs/tags/v1"},
    }
    problems = dict(check_source_rules(body, "git_host", require_complete=True))
    assert ("source_config", "integration_id") in problems
    assert ("source_config", "repo_url") in problems
    assert ("source_revision_config", "agent_config_path") in problems
    assert "tag" in problems[("source_config", "build_on_push")]


def test_mode_limits_sources() -> None:
    """external_docker is self-hosted only; git_host is cloud only."""
    assert check_mode("git_host", Mode.CLOUD) == []
    assert check_mode("external_docker", Mode.CLOUD)
    assert check_mode("git_host", Mode.SELF_HOSTED)
    assert check_mode("external_docker", "self-hosted") == []


@pytest.mark.parametrize("name", ["a", "a-b", "0", "a" * NAME_MAX_LENGTH])
def test_valid_deployment_names(name: str) -> None:
    """Lowercase letters, digits and inner dashes, up to 63 characters."""
    assert check_name(name) == []


@pytest.mark.parametrize("name", ["", "-ab", "ab-", "A", "a_b", "a.b", "äb", "a" * 64, "ab\n"])
def test_invalid_deployment_names(name: str) -> None:
    """Anything else is one problem on `name`."""
    (problem,) = check_name(name)
    assert problem[0] == ("name",)


def test_resource_spec_numbers() -> None:
    """A negative number, a CPU of 0 and a request over its limit are each named."""
    spec = ResourceSpec(max_scale=-1, cpu=0, memory_mb=4, memory_limit_mb=2)
    problems = dict(check_resource_spec(spec))
    where = ("source_config", "resource_spec")
    assert problems == {
        (*where, "max_scale"): "must not be negative",
        (*where, "cpu"): "must be greater than 0",
        (*where, "memory_mb"): "must not be greater than memory_limit_mb (4 > 2)",
    }
    assert check_resource_spec(None) == []


def test_fields_of_other_sources_are_named_in_rule_order() -> None:
    """Fields of other sources come in the rules' order whatever the body's order; a
    null or empty value, or a section that is not an object, sets nothing."""
    body = {
        "secret_references": [{"name": "A", "secret_name": "s", "secret_key": "k"}],
        "source_revision_config": {"repo_ref": "main", "image_uri": None},
        "source_config": {"listener_id": "x", "repo_url": "https://example.com/r"},
    }
    locs = [loc for loc, _ in check_source_rules(body, "internal_docker", require_complete=False)]
    assert locs == [
        ("source_config", "repo_url"),
        ("source_config", "listener_id"),
        ("source_revision_config", "repo_ref"),
        ("secret_references",),
    ]
    odd: dict[str, Any] = {"source_config": "x", "source_revision_config": None}
    odd["secret_references"] = []
    assert check_source_rules(odd, "external_docker", require_complete=False) == []


def test_resource_spec_problems_come_in_field_order() -> None:
    """Each number's problem in the order of the fields, then the pairs in order (scales,
    CPUs, memory), however the spec was written or changed afterwards."""
    spec = ResourceSpec(db_cpu=0, memory_mb=-1, queue_max_scale=1, queue_min_scale=2)
    spec.cpu_limit, spec.cpu = 1.0, 2.0
    spec.min_scale = -3
    where = ("source_config", "resource_spec")
    assert [loc[-1] for loc, _ in check_resource_spec(spec)] == [
        "min_scale",
        "memory_mb",
        "db_cpu",
        "queue_min_scale",
        "cpu",
    ]
    assert check_resource_spec(ResourceSpec(cpu=2, min_scale=3)) == []
    assert check_resource_spec(ResourceSpec(max_scale=-1)) == [
        ((*where, "max_scale"), "must not be negative")
    ]
