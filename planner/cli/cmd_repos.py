"""`planner repos INTEGRATION_ID`: list the repositories of a git_host integration.

`--format toml` prints one ready-to-paste `[deployments.<name>]` table per repository
(see `planner.render.repos`).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from planner.cli.options import (
    WorkspaceOptions,
    add_config_option,
    add_endpoint_options,
    add_format_option,
)

# The client and the views are imported where they are used: `planner repos --help`
# needs none of them.
if TYPE_CHECKING:
    from planner.api.support_models import Repository
    from planner.cli.endpoint import Endpoint


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "repos", parents=parents, help="list repositories of a git_host integration"
    )
    parser.add_argument("integration_id", metavar="INTEGRATION_ID")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json", "toml"])
    parser.set_defaults(func=run)


async def fetch_repositories(endpoint: Endpoint, integration_id: str) -> list[Repository]:
    """The repositories; an unknown integration's error lists the known ones."""
    from planner.api.errors import NotFoundError
    from planner.cli.endpoint import open_client

    async with open_client(endpoint) as client:
        try:
            return await client.list_repositories(integration_id)
        except NotFoundError as error:
            known = await client.list_integrations()
            names = ", ".join(f"{i.id} ({i.name})" for i in known) or "none"
            error.hint = f"known integrations: {names}"
            raise


def run(args: argparse.Namespace) -> int:
    import asyncio

    from planner.cli.target import resolve_target
    from planner.render.console import make_console
    from planner.render.repos import write_repositories

    target = resolve_target(WorkspaceOptions.of(vars(args)), os.environ)
    repositories = asyncio.run(fetch_repositories(target.endpoint, args.integration_id))
    write_repositories(make_console(), repositories, args.format)
    return 0
