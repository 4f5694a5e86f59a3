"""`planner providers`: list the OAuth providers of the workspace."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from rich.table import Table
from rich.text import Text

from planner.api.models import OAuthProvider
from planner.cli.common import add_config_option, add_endpoint_options, add_format_option
from planner.cli.connect import open_cli_client
from planner.render.console import make_console


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("providers", parents=parents, help="list OAuth providers")
    add_config_option(parser)
    add_endpoint_options(parser)
    add_format_option(parser, ["text", "json"])
    parser.set_defaults(func=run)


async def fetch_providers(args: argparse.Namespace) -> list[OAuthProvider]:
    async with open_cli_client(args) as client:
        return await client.list_providers()


def render_text(providers: list[OAuthProvider]) -> None:
    console = make_console()
    if not providers:
        console.print("No OAuth providers.")
        return
    table = Table()
    for header in ("Name", "Provider", "Type", "Client ID", "PKCE", "ID"):
        table.add_column(header, overflow="fold")  # fold, never cut: ids stay whole
    for provider in providers:
        values = [
            provider.name,
            provider.provider_id,
            provider.provider_type or "-",
            provider.client_id,
            "yes" if provider.uses_pkce else "no",
            provider.id,
        ]
        table.add_row(*(Text(value) for value in values))  # Text: names print literally
    console.print(table)


def run(args: argparse.Namespace) -> int:
    providers = asyncio.run(fetch_providers(args))
    if args.format == "json":
        print(json.dumps([p.model_dump(mode="json") for p in providers], indent=2))
    else:
        render_text(providers)
    return 0
