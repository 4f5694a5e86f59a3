"""`planner providers`: list the OAuth providers of the workspace."""

from __future__ import annotations

import asyncio
import os

from planner.api.support_models import OAuthProvider
from planner.cli.commands.providers import ProvidersArgs
from planner.cli.endpoint import Endpoint, open_client
from planner.cli.target import resolve_target
from planner.render.console import make_console
from planner.render.providers import write_providers


async def fetch_providers(endpoint: Endpoint) -> list[OAuthProvider]:
    async with open_client(endpoint) as client:
        return await client.list_providers()


def run(args: ProvidersArgs) -> int:
    target = resolve_target(args.workspace, os.environ)
    providers = asyncio.run(fetch_providers(target.endpoint))
    write_providers(make_console(), providers, args.format)
    return 0
