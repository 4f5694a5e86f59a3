"""Listing helpers of the API client: the deployment list's filters as query parameters,
a paged listing walked to its end, and resources found by id in chunks of ids.

The client (`planner.api.client`) is their one user; they hold no connection of their own:
what they list comes through the callables they are given.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from contextlib import aclosing
from typing import Protocol, TypedDict, TypeVar, cast

from planner.api.chunks import chunked
from planner.api.models import DeploymentStatus, DeploymentType

IDS_PER_REQUEST = 100
PAGE_SIZE = 100  # items a listing asks for per page
Params = list[tuple[str, str | int | float | bool | None]]


class DeploymentFilters(TypedDict, total=False):
    """Filters of `GET /v2/deployments` (lists are joined with commas on the wire)."""

    name_contains: str
    status: DeploymentStatus | str
    remote_reconciled: bool
    tag_value_ids: Sequence[str] | str
    image_version: str
    deployment_type: DeploymentType | str
    deployment_ids: Sequence[str] | str


def filter_params(filters: DeploymentFilters) -> Params:
    params: Params = []
    for name, value in filters.items():
        if value is None:
            continue
        if isinstance(value, bool):
            params.append((name, "true" if value else "false"))
        elif isinstance(value, str):
            params.append((name, str(value)))
        else:
            items = cast(Iterable[object], value)
            params.append((name, ",".join(str(item) for item in items)))
    return params


def unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class Identified(Protocol):
    @property
    def id(self) -> str: ...


Listed = TypeVar("Listed", bound=Identified)


async def paged(
    page: Callable[[int], Awaitable[tuple[list[Listed], int]]], page_size: int
) -> AsyncGenerator[Listed, None]:
    """What PAGE (offset -> its items, the next offset) lists, page after page (a short
    page is the last). Stops too when a page brings nothing new, so a server that
    ignores the offset cannot make it loop forever."""
    offset = 0
    seen: set[str] = set()
    while True:
        resources, next_offset = await page(offset)
        fresh = [item for item in resources if item.id not in seen]
        for item in fresh:
            seen.add(item.id)
            yield item
        if len(resources) < page_size or not fresh:
            return
        offset = next_offset if next_offset > offset else offset + len(resources)


async def by_ids(
    ids: Iterable[str], listed: Callable[[list[str]], AsyncGenerator[Listed, None]]
) -> dict[str, Listed]:
    """What LISTED (a chunk of ids -> what it lists) finds of IDS, by id: chunks of 100,
    concurrently."""
    wanted = unique(ids)
    chunks = chunked(wanted, IDS_PER_REQUEST)
    pages = await asyncio.gather(*(collect_ids(listed(chunk), chunk) for chunk in chunks))
    found = {item.id: item for page in pages for item in page}
    return {i: found[i] for i in wanted if i in found}


async def collect_ids(listed: AsyncGenerator[Listed, None], ids: list[str]) -> list[Listed]:
    """One chunk: stop as soon as every id is found (one request when all exist)."""
    wanted = set(ids)
    found: list[Listed] = []
    async with aclosing(listed) as items:
        async for item in items:
            found.append(item)
            wanted.discard(item.id)
            if not wanted:
                break
    return found
