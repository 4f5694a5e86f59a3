"""Bulk delete that tells the caller exactly which ids are gone.

Chunks of at most 100 ids, concurrently. Per chunk:
- 200: every id of the chunk is deleted.
- 207: the body is NOT trusted; the ids are read back. An id that no longer exists, or
  exists in `AWAITING_DELETE` (deletion is asynchronous), counts as deleted; any other
  is still present and failed (with the server's detail when its body names the id).
- 404: the id named by the detail does not exist, so it is already gone (deleted); it
  leaves the chunk and the rest is sent again. When the detail names none of the ids,
  the chunk is read back to find the missing ones.
- any other error: every id of the chunk failed with the error's message (auth errors
  are raised: nothing else would work either).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx2
from pydantic import ValidationError

from planner.api.chunks import chunked
from planner.api.errors import AuthError, NotFoundError
from planner.api.models import BulkDeleteResult, is_being_deleted
from planner.errors import ApiError

if TYPE_CHECKING:
    from planner.api.client import ControlPlaneClient

IDS_PER_DELETE = 100
STILL_PRESENT = "still present after the delete request"


@dataclass
class DeleteOutcome:
    """`deleted`: gone or being deleted; `still_present`: read back as still there;
    `failed`: id -> why, for every id not deleted (the still-present ones included)."""

    deleted: set[str] = field(default_factory=set)
    still_present: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.still_present

    def merge(self, other: DeleteOutcome) -> None:
        self.deleted |= other.deleted
        self.still_present |= other.still_present
        self.failed.update(other.failed)


async def delete_deployments(client: ControlPlaneClient, ids: Sequence[str]) -> DeleteOutcome:
    chunks = chunked(ids, IDS_PER_DELETE)
    outcomes = await asyncio.gather(*(_delete_chunk(client, chunk) for chunk in chunks))
    total = DeleteOutcome()
    for outcome in outcomes:
        total.merge(outcome)
    return total


async def _delete_chunk(client: ControlPlaneClient, chunk: list[str]) -> DeleteOutcome:
    outcome = DeleteOutcome()
    remaining = list(chunk)
    while remaining:
        try:
            response = await client.send_bulk_delete(remaining)
        except NotFoundError as error:
            missing = await _missing_ids(client, error, remaining)
            outcome.deleted |= missing
            remaining = [i for i in remaining if i not in missing]
            continue
        except AuthError:
            raise
        except ApiError as error:
            outcome.failed.update(dict.fromkeys(remaining, error.message))
            return outcome
        if response.status_code == 207:
            outcome.merge(await _read_back(client, remaining, response))
        else:
            outcome.deleted |= set(remaining)
        return outcome
    return outcome


async def _missing_ids(
    client: ControlPlaneClient, error: NotFoundError, ids: list[str]
) -> set[str]:
    detail = str(error.detail or "")
    named = {i for i in ids if i in detail}
    if named:
        return named
    existing = await client.get_deployments_by_ids(ids)
    missing = set(ids) - set(existing)
    if not missing:  # 404 although every id exists: do not loop, report it
        raise error
    return missing


def _claimed_failures(response: httpx2.Response) -> dict[str, str]:
    """What the 207 body says failed, if it parses (only used for the detail text)."""
    try:
        result = BulkDeleteResult.model_validate_json(response.content)
    except ValidationError:
        return {}
    return {item.deployment_id: item.detail for item in result.failed}


async def _read_back(
    client: ControlPlaneClient, ids: list[str], response: httpx2.Response
) -> DeleteOutcome:
    claimed = _claimed_failures(response)
    existing = await client.get_deployments_by_ids(ids)
    outcome = DeleteOutcome()
    for deployment_id in ids:
        found = existing.get(deployment_id)
        if found is None or is_being_deleted(found.status):
            outcome.deleted.add(deployment_id)
        else:
            outcome.still_present.add(deployment_id)
            outcome.failed[deployment_id] = claimed.get(deployment_id, STILL_PRESENT)
    return outcome
