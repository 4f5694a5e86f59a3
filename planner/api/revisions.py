"""The client's calls on one deployment's revisions: read one, list them, redeploy one.

A mixin of `planner.api.client.ControlPlaneClient` (the one request path, retries and
parsing are the client's): `client.get_revision(...)`, `client.list_revisions(...)`,
`client.redeploy(...)`.

`redeploy` is a POST that makes a new revision: it is never sent twice blindly. Given
the deployment's latest revision before the call, a failed attempt is followed by a read
of the deployment, and one whose latest revision moved is what that attempt made
(returned, not redeployed again); without it, the POST is sent once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import TypeAdapter

from planner.api.listing import PAGE_SIZE
from planner.api.models import Deployment, Revision, RevisionList
from planner.api.retry import RetryNotice, RetryPolicy, run_with_retries

if TYPE_CHECKING:
    import httpx2

T = TypeVar("T")


class RevisionCalls:
    """Revision operations, over the request path of the client that mixes them in."""

    if TYPE_CHECKING:  # the client's, which mixes this class in
        retry: RetryPolicy

        async def _get(
            self, path: str, adapter: TypeAdapter[T], params: list[tuple[str, Any]] | None = None
        ) -> T: ...

        async def _send(
            self, method: str, path: str, *, params: Any = None, body: Any = None
        ) -> httpx2.Response: ...

        def _parse(
            self, adapter: TypeAdapter[T], method: str, path: str, r: httpx2.Response
        ) -> T: ...

        def _notify_retry(self, notice: RetryNotice) -> None: ...

        async def get_deployment(self, deployment_id: str) -> Deployment: ...

    async def get_revision(self, deployment_id: str, revision_id: str) -> Revision:
        return await self._get(f"/v2/deployments/{deployment_id}/revisions/{revision_id}", _REV)

    async def list_revisions(self, deployment_id: str) -> list[Revision]:
        """Every revision of the deployment, newest first."""
        path = f"/v2/deployments/{deployment_id}/revisions"
        revisions: list[Revision] = []
        offset = 0
        while True:
            params: list[tuple[str, Any]] = [("limit", PAGE_SIZE), ("offset", offset)]
            page = await self._get(path, _REVISION_LIST, params)
            revisions.extend(page.resources)
            if len(page.resources) < PAGE_SIZE or page.offset <= offset:
                return revisions
            offset = page.offset

    async def redeploy(
        self, deployment_id: str, revision_id: str, *, latest: str | None = None
    ) -> Deployment:
        """`POST /v2/deployments/{id}/revisions/{revision_id}/redeploy`: a new revision of
        REVISION_ID's source and revision config, which becomes the deployment's latest
        (its active one once deployed); the deployment (200). LATEST: its latest revision
        before this call, which makes a failed attempt safe to retry (see the module)."""
        path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"

        async def attempt() -> Deployment:
            response = await self._send("POST", path)
            return self._parse(_DEPLOYMENT, "POST", path, response)

        async def made_by_that_attempt() -> Deployment | None:
            found = await self.get_deployment(deployment_id)
            return found if found.latest_revision_id != latest else None

        if latest is None:
            return await attempt()
        return await run_with_retries(
            self.retry, attempt, before_retry=made_by_that_attempt, on_retry=self._notify_retry
        )


_DEPLOYMENT: TypeAdapter[Deployment] = TypeAdapter(Deployment)
_REV: TypeAdapter[Revision] = TypeAdapter(Revision)
_REVISION_LIST: TypeAdapter[RevisionList] = TypeAdapter(RevisionList)
