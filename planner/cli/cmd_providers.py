"""`planner providers`: list the OAuth providers of the workspace."""

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

# The client and the views are imported where they are used: `planner providers --help`
# needs none of them.
if TYPE_CHECKING:
    from planner.api.support_models import OAuthProvider
    from planner.cli.endpoint import Endpoint


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("providers", parents=parents, help="list OAuth providers")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(func=run)


async def fetch_providers(endpoint: Endpoint) -> list[OAuthProvider]:
    from planner.cli.endpoint import open_client

    async with open_client(endpoint) as client:
        return await client.list_providers()


def run(args: argparse.Namespace) -> int:
    import asyncio

    from planner.cli.target import resolve_target
    from planner.render.console import make_console
    from planner.render.providers import write_providers

    target = resolve_target(WorkspaceOptions.of(vars(args)), os.environ)
    providers = asyncio.run(fetch_providers(target.endpoint))
    write_providers(make_console(), providers, args.format)
    return 0
