"""The repositories of an integration: a table, JSON, or ready-to-paste TOML (`planner repos`).

The TOML is one `[deployments.<name>]` table per repository, with `integration_id`,
`repo_url` and `repo_ref` (the default branch) filled in, written by `tomli_w`, and the
required agent config path (`agent_config_path`, the service's `langgraph_config_path`)
set to the usual file with a comment to check it: the output validates as printed. It is
in the words of the server the repositories came from (`Spelling`).
"""

from __future__ import annotations

import re

import tomli_w
from rich.console import Console

from planner.api.models import Source
from planner.api.support_models import Repository
from planner.api.vocabulary import AGENT_CONFIG_KEY, SEED_SPELLING, Spelling
from planner.render.output import folded_table, write_json

MAX_NAME_LENGTH = 63
HEADERS = ("Name", "Owner", "URL", "Default branch", "ID")
AGENT_CONFIG_LINE = (
    '{key} = "agent.json"  # required: check it names the agent config in the repository'
)


def deployment_name(repo_name: str) -> str:
    """A repository name made a valid deployment name (lowercase letters, digits, `-`)."""
    name = re.sub(r"[^a-z0-9]+", "-", repo_name.lower()).strip("-")
    return _fit(name or "repo")


def _fit(name: str, suffix: str = "") -> str:
    """`name` + `suffix` within the 63 characters a deployment name may have."""
    return name[: MAX_NAME_LENGTH - len(suffix)].rstrip("-") + suffix


def unique_names(repositories: list[Repository]) -> list[str]:
    names: list[str] = []
    for repository in repositories:
        base = name = deployment_name(repository.name)
        counter = 2
        while name in names:
            name, counter = _fit(base, f"-{counter}"), counter + 1
        names.append(name)
    return names


def deployment_table(name: str, repository: Repository, spelling: Spelling = SEED_SPELLING) -> str:
    """One deployment's tables (in SPELLING's words), under a comment naming the
    repository, ending with the agent config path line the user should check."""
    deployment = {
        "source": Source.GIT_HOST.value,
        "source_config": {
            "integration_id": repository.host_integration_id,
            "repo_url": repository.url,
        },
        "source_revision_config": {"repo_ref": repository.default_branch},
    }
    body = tomli_w.dumps({"deployments": {name: spelling.body(deployment)}})
    agent = AGENT_CONFIG_LINE.format(key=spelling.word(AGENT_CONFIG_KEY))
    return f"# {repository.owner}/{repository.name}\n{body}{agent}\n"


def render_toml(repositories: list[Repository], spelling: Spelling = SEED_SPELLING) -> str:
    pairs = zip(unique_names(repositories), repositories, strict=True)
    return "\n".join(deployment_table(name, repository, spelling) for name, repository in pairs)


def write_repositories(
    console: Console,
    repositories: list[Repository],
    output_format: str,
    spelling: Spelling = SEED_SPELLING,
) -> None:
    """The repositories as JSON, ready-to-paste TOML (in SPELLING's words) or a table."""
    if output_format == "json":
        write_json(console, [r.model_dump(mode="json") for r in repositories])
    elif output_format == "toml":
        console.out(render_toml(repositories, spelling), end="", highlight=False)
    elif not repositories:
        console.print("No repositories in this integration.")
    else:
        rows = ([r.name, r.owner, r.url, r.default_branch, r.id] for r in repositories)
        console.print(folded_table(HEADERS, rows))
