"""`planner repos INTEGRATION_ID`: list the repositories of a git_host integration.

`--format toml` prints one ready-to-paste `[deployments.<name>]` table per repository,
with `integration_id`, `repo_url` and `repo_ref` (the default branch) filled in.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from typing import Any

from rich.table import Table
from rich.text import Text

from planner.api.errors import NotFoundError
from planner.api.models import Repository
from planner.cli.common import add_config_option, add_endpoint_options, add_format_option
from planner.cli.connect import open_cli_client
from planner.render.console import make_console


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "repos", parents=parents, help="list repositories of a git_host integration"
    )
    parser.add_argument("integration_id", metavar="INTEGRATION_ID")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json", "toml"])
    parser.set_defaults(func=run)


async def fetch_repositories(args: argparse.Namespace) -> list[Repository]:
    """The repositories; an unknown integration's error lists the known ones."""
    async with open_cli_client(args) as client:
        try:
            return await client.list_repositories(args.integration_id)
        except NotFoundError as error:
            known = await client.list_integrations()
            names = ", ".join(f"{i.id} ({i.name})" for i in known) or "none"
            error.hint = f"known integrations: {names}"
            raise


MAX_NAME_LENGTH = 63


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


def toml_string(value: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes, \uXXXX included).
    return json.dumps(value, ensure_ascii=False)


def deployment_table(name: str, repository: Repository) -> str:
    return "\n".join(
        [
            f"# {repository.owner}/{repository.name}",
            f"[deployments.{name}]",
            'source = "git_host"',
            "",
            f"[deployments.{name}.source_config]",
            f"integration_id = {toml_string(repository.host_integration_id)}",
            f"repo_url = {toml_string(repository.url)}",
            "",
            f"[deployments.{name}.source_revision_config]",
            f"repo_ref = {toml_string(repository.default_branch)}",
            '# agent_config_path = "agent.json"  # required: the agent config in the repository',
            "",
        ]
    )


def render_toml(repositories: list[Repository]) -> str:
    tables = map(deployment_table, unique_names(repositories), repositories)
    return "\n".join(tables)


def render_text(repositories: list[Repository]) -> None:
    console = make_console()
    if not repositories:
        console.print("No repositories in this integration.")
        return
    table = Table()
    for header in ("Name", "Owner", "URL", "Default branch", "ID"):
        table.add_column(header, overflow="fold")  # fold, never cut: urls stay whole
    for repo in repositories:
        values = [repo.name, repo.owner, repo.url, repo.default_branch, repo.id]
        table.add_row(*(Text(value) for value in values))
    console.print(table)


def run(args: argparse.Namespace) -> int:
    repositories = asyncio.run(fetch_repositories(args))
    if args.format == "json":
        print(json.dumps([r.model_dump(mode="json") for r in repositories], indent=2))
    elif args.format == "toml":
        print(render_toml(repositories), end="")
    else:
        render_text(repositories)
    return 0
