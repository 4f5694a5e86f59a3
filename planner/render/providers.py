"""The OAuth providers of a workspace, as a table or JSON (`planner providers`)."""

from __future__ import annotations

from rich.console import Console

from planner.api.support_models import OAuthProvider
from planner.render.output import folded_table, write_json

HEADERS = ("Name", "Provider", "Type", "Client ID", "PKCE", "ID")


def provider_row(provider: OAuthProvider) -> list[str]:
    return [
        provider.name,
        provider.provider_id,
        provider.provider_type or "-",
        provider.client_id,
        "yes" if provider.uses_pkce else "no",
        provider.id,
    ]


def write_providers(console: Console, providers: list[OAuthProvider], output_format: str) -> None:
    if output_format == "json":
        write_json(console, [p.model_dump(mode="json") for p in providers])
    elif not providers:
        console.print("No OAuth providers.")
    else:
        console.print(folded_table(HEADERS, map(provider_row, providers)))
