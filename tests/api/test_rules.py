"""Per-source rules reject fields of other sources and demand what a source needs."""

from __future__ import annotations

from planner.api.rules import Mode, check_mode, check_source_rules


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
