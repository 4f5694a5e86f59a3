"""`planner repos` against the embedded local control plane (text, JSON and TOML)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from planner.api.support_models import Repository
from planner.cli.main import main
from planner.config.loader import load_config
from planner.render.repos import deployment_name, render_toml


def integration_id(capsys: pytest.CaptureFixture[str]) -> str:
    """The seeded integration's id, read through the API like a user would."""
    assert main(["repos", "00000000-0000-4000-8000-00000000dead", "--format", "json"]) == 1
    err = capsys.readouterr().err
    hint = err.split("known integrations: ", 1)[1]
    return hint.split(" ", 1)[0]


def test_unknown_integration_lists_the_known_ones(embedded: Path, capsys):
    """An unknown integration id fails with a hint naming the integrations that exist."""
    assert len(integration_id(capsys)) == 36


def test_repos_json(embedded: Path, capsys):
    """JSON output is the repository records of the integration."""
    integration = integration_id(capsys)
    assert main(["repos", integration, "--format", "json"]) == 0
    repos = json.loads(capsys.readouterr().out)
    assert repos and all(r["host_integration_id"] == integration for r in repos)
    assert {"id", "name", "owner", "url", "default_branch"} <= set(repos[0])


def test_repos_text(embedded: Path, capsys):
    """Text output is a table with the repositories' names."""
    integration = integration_id(capsys)
    assert main(["repos", integration, "--format", "json"]) == 0
    names = [r["name"] for r in json.loads(capsys.readouterr().out)]
    assert main(["repos", integration]) == 0
    out = capsys.readouterr().out
    assert "Default branch" in out
    assert all(name[:8] in out for name in names)


def test_repos_toml_is_ready_to_paste(embedded: Path, capsys):
    """TOML output parses into one git_host deployment per repository, fields filled in."""
    integration = integration_id(capsys)
    assert main(["repos", integration, "--format", "json"]) == 0
    repos = json.loads(capsys.readouterr().out)
    assert main(["repos", integration, "--format", "toml"]) == 0
    out = capsys.readouterr().out
    deployments = tomllib.loads(out)["deployments"]
    assert len(deployments) == len(repos)
    first = deployments[deployment_name(repos[0]["name"])]
    assert first["source"] == "git_host"
    assert first["source_config"] == {"integration_id": integration, "repo_url": repos[0]["url"]}
    assert first["source_revision_config"] == {
        "repo_ref": repos[0]["default_branch"],
        "agent_config_path": "agent.json",
    }


@pytest.mark.parametrize(
    ("repo", "name"),
    [("Support_Agent", "support-agent"), ("--x..y--", "x-y"), ("API v2", "api-v2"), ("!!", "repo")],
)
def test_deployment_names_follow_the_rules(repo: str, name: str):
    """Repository names become lowercase letters, digits and single dashes."""
    assert deployment_name(repo) == name


def test_colliding_names_get_suffixes():
    """Two repositories that normalise to one name get distinct table keys."""
    repos = [
        Repository(
            host_integration_id="i", id=str(n), name=name, owner="o", url="u", default_branch="main"
        )
        for n, name in enumerate(["My.Repo", "my-repo"])
    ]
    parsed = tomllib.loads(render_toml(repos))["deployments"]
    assert set(parsed) == {"my-repo", "my-repo-2"}


def test_long_repository_names_fit_the_name_limit():
    """Names stay within 63 characters, suffixes included, so the pasted TOML validates."""
    long = "a" * 70
    repos = [
        Repository(
            host_integration_id="i", id=str(n), name=long, owner="o", url="u", default_branch="m"
        )
        for n in range(2)
    ]
    names = set(tomllib.loads(render_toml(repos))["deployments"])
    assert names == {"a" * 63, "a" * 61 + "-2"}


def test_printed_toml_validates_as_printed(embedded: Path, capsys):
    """The TOML exactly as printed passes the config loader and `planner validate`."""
    integration = integration_id(capsys)
    assert main(["repos", integration, "--format", "toml"]) == 0
    out = capsys.readouterr().out
    config_file = embedded / "planner.toml"
    config_file.write_text(out)
    config = load_config(config_file, environ={})
    assert len(config.deployments) == out.count("[deployments.") // 3
    assert main(["validate", "-c", str(config_file)]) == 0
    assert "valid" in capsys.readouterr().out
