"""`planner repos INTEGRATION_ID`: list the repositories of a git integration.

`--format toml` prints one ready-to-paste `[deployments.<name>]` table per repository
(see `planner.render.repos`), in the words of the server they came from.
"""

from __future__ import annotations

import asyncio
import os

from planner.api.errors import NotFoundError
from planner.api.support_models import Repository
from planner.api.vocabulary import Dialect, Spelling
from planner.cli.commands.repos import ReposArgs
from planner.cli.endpoint import Endpoint, open_client
from planner.cli.target import resolve_target
from planner.render.console import make_console
from planner.render.repos import write_repositories


async def fetch_repositories(
    endpoint: Endpoint, integration_id: str
) -> tuple[list[Repository], Dialect]:
    """The repositories and the dialect of the server that listed them; an unknown
    integration's error lists the known ones."""
    async with open_client(endpoint) as client:
        try:
            return await client.list_repositories(integration_id), await client.speaks()
        except NotFoundError as error:
            known = await client.list_integrations()
            names = ", ".join(f"{i.id} ({i.name})" for i in known) or "none"
            error.hint = f"known integrations: {names}"
            raise


def run(args: ReposArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    repositories, dialect = asyncio.run(fetch_repositories(target.endpoint, args.integration_id))
    spelling = Spelling.leaning_to(dialect)
    write_repositories(make_console(), repositories, args.format, spelling)
    return 0
