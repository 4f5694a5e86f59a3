"""The async client of the control-plane API: one method per endpoint, typed results.

One `httpx2.AsyncClient` (one connection pool) per `ControlPlaneClient`. The API key is
added by an `httpx2.Auth` flow, so it lives in no default header, no repr, no message.
The base URL may carry a path prefix (`https://host/api-host`): requests go to
`<prefix>/v2/...`. GET, PATCH and DELETE are retried (see `planner.api.retry`); a POST
is retried only after looking up what the failed attempt may have created.

Dialects (`planner.api.vocabulary`): what the client writes (create and PATCH bodies,
the integration paths) is in the words of the server's dialect; a client made without
one (`dialect=None`) asks the server first: one `GET <prefix>/openapi.json` before its
first request, whose enums name the git source in one dialect's word. What it reads is
understood in either dialect's words. Deployments are read keeping the keys no model
knows (`planner.api.unknown`), and a PATCH of a `resource_spec` sends them back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from collections.abc import AsyncGenerator, Callable, Collection, Iterable, Sequence
from contextlib import aclosing
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar, Unpack

import httpx2
from pydantic import TypeAdapter, ValidationError

from planner.api import bulk_delete
from planner.api.auth import KeyAuth, display_url
from planner.api.bulk_delete import DeleteOutcome
from planner.api.direct import DirectSender
from planner.api.errors import (
    RateLimitedError,
    connection_error,
    error_from_response,
    is_too_deep_for_pydantic,
    unexpected_body,
)
from planner.api.gate import BackoffGate
from planner.api.listing import (
    IDS_PER_REQUEST as IDS_PER_REQUEST,
)
from planner.api.listing import (
    PAGE_SIZE as PAGE_SIZE,
)
from planner.api.listing import (
    DeploymentFilters,
    Params,
    by_ids,
    filter_params,
    paged,
    unique,
)
from planner.api.models import (
    Deployment,
    DeploymentCreate,
    DeploymentList,
    DeploymentPatch,
    DeploymentProgress,
    DeploymentProgressList,
    is_being_deleted,
)
from planner.api.retry import RetryNotice, RetryObserver, RetryPolicy, run_with_retries
from planner.api.revisions import RevisionCalls
from planner.api.transport import client_transport
from planner.api.unknown import READ_EXTRA, with_unknown
from planner.api.vocabulary import Dialect, dialect_of_document, integration_path, translate_body
from planner.errors import ApiError, ConfigError

if TYPE_CHECKING:  # built by the commands that list them, not by every client
    from planner.api.support_models import Integration, OAuthProvider, Repository

logger = logging.getLogger("planner.api")

T = TypeVar("T")
DEFAULT_TIMEOUT = httpx2.Timeout(30.0, connect=10.0)
# Where a server publishes its OpenAPI document (below the base URL's path prefix).
DOCUMENT_PATH = "/openapi.json"
DIALECT_SETTING = "[control_plane] dialect, PLANNER_DIALECT or --dialect"
# Until the control plane answered once: ~3.5 s of backoff, then the error names the URL.
FIRST_CONTACT_ATTEMPTS = 4
DEFAULT_CONNECTIONS = 100  # httpx2's own default; an apply sizes it (`fit_pool`)


def pool_limits(connections: int) -> httpx2.Limits:
    """A pool of CONNECTIONS connections, every one kept alive when idle (httpx2 keeps 20
    by default: the others would be closed and opened again between requests)."""
    return httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)


def tls_context(base_url: str) -> ssl.SSLContext:
    """The TLS context of a client of BASE_URL: httpx2's default for https. A plain http
    one never uses TLS (no redirect is followed; a proxy has its own context): it gets a
    context that verifies and trusts no certificate, without reading the CA bundle (~20 ms
    of start-up): a request to an https URL would fail verification, never skip it."""
    if base_url[:7].lower() == "http://":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return httpx2.create_ssl_context()


class ControlPlaneClient(RevisionCalls):
    """Typed access to every endpoint of the control plane; use as `async with` (the
    revision calls are `planner.api.revisions`')."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        tenant_id: str | None = None,
        *,
        transport: httpx2.AsyncBaseTransport | None = None,
        http_client: httpx2.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        endpoint: str | None = None,
        on_close: Callable[[], None] | None = None,
        gate: BackoffGate | None = None,
        limits: httpx2.Limits | None = None,
        dialect: Dialect | None = Dialect.SEED,
    ) -> None:
        if not api_key:
            raise ConfigError("no API key given", hint="set PLANNER_API_KEY")
        self.base_url = base_url.rstrip("/")
        self.tenant_id = tenant_id
        self.endpoint = endpoint or display_url(self.base_url)
        self.retry = retry or RetryPolicy()
        self._reached = False  # has the control plane answered this client once?
        self._auth = KeyAuth(api_key, tenant_id)
        self._owns_http = http_client is None
        # only a pool this client made (no transport given) is ever resized
        self._sizable = http_client is None and transport is None
        self._limits = limits or pool_limits(DEFAULT_CONNECTIONS)
        self._ssl: ssl.SSLContext | None = None
        # where requests go past httpx2's client layers (None: httpx2 picks, a proxy's)
        self._transport: httpx2.AsyncBaseTransport | None = None
        self._http = http_client or self._new_http(transport)
        # Requests of a pool this client made skip httpx2's client layers (the same
        # bytes: `planner.api.direct`); a given client is used as is (hooks, auth), and
        # so is ours once the server set a cookie (httpx2 sends the cookies back).
        self._direct = None if http_client is not None else self._direct_of(self._http)
        self._on_close = on_close
        # Shared 429 pause for every request of this client (apply sets one); None: off.
        self.gate = gate
        # Hears of each retry (apply shows them); a 429 held by the gate is its pause.
        self.on_retry: RetryObserver | None = None
        # Called before every request; raising stops it unsent (a writer's lock check:
        # nothing is sent once the state lock is lost).
        self.guard: Callable[[], None] | None = None
        # The words the server speaks; None: not known yet (asked before the first request).
        self.dialect = dialect
        self._learning: asyncio.Lock | None = None
        self._unknowable: ConfigError | None = None  # the server could not tell

    def _new_http(self, transport: httpx2.AsyncBaseTransport | None) -> httpx2.AsyncClient:
        verify: ssl.SSLContext | bool = True  # a given transport: httpx2's own default
        if transport is None:
            # made once: `fit_pool`'s new pool reuses it
            verify = self._ssl = self._ssl or tls_context(self.base_url)
            # the pool on asyncio sockets (its expiry checks cost a poll() each otherwise)
            transport = client_transport(self._limits, verify)
        self._transport = transport
        return httpx2.AsyncClient(
            transport=transport, timeout=DEFAULT_TIMEOUT, limits=self._limits, verify=verify
        )

    def _direct_of(self, http: httpx2.AsyncClient) -> DirectSender | None:
        if self._transport is None:
            return None  # httpx2's own transports: its own path picks among them
        return DirectSender.of(http, self._auth.headers())

    @property
    def pool_connections(self) -> int:
        """The connections of the pool this client made (unbounded: 0)."""
        return self._limits.max_connections or 0

    async def fit_pool(self, connections: int) -> None:
        """Let CONNECTIONS requests be in flight without queueing in the pool (whose
        queue is costly), all kept alive between requests. Call it between requests:
        a smaller pool this client made is replaced (its idle connections closed)."""
        limits = pool_limits(connections)
        if not self._sizable or self.pool_connections >= connections:
            return
        old, self._limits = self._http, limits
        self._http = self._new_http(None)
        self._direct = self._direct_of(self._http)
        await old.aclose()

    def __repr__(self) -> str:
        return f"ControlPlaneClient(endpoint={self.endpoint!r}, tenant_id={self.tenant_id!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()
        if self._on_close is not None:
            self._on_close()
            self._on_close = None

    # --- the server's dialect -----------------------------------------------------------

    async def speaks(self) -> Dialect:
        """The server's dialect: as given, else read from its OpenAPI document once (the
        first caller asks; the others wait for its answer)."""
        if self.dialect is None:
            self._learning = self._learning or asyncio.Lock()
            async with self._learning:
                if self._unknowable is not None:  # asked once: the waiters get its answer
                    raise self._unknowable
                if self.dialect is None:
                    try:
                        self.dialect = await self._read_dialect()
                    except ConfigError as error:
                        self._unknowable = error
                        raise
        return self.dialect

    async def _read_dialect(self) -> Dialect:
        """The dialect of the server's OpenAPI document; a ConfigError naming the setting
        when there is none, or it cannot tell (a server that does not answer at all
        raises what any first request would)."""
        try:
            response = await self._call("GET", DOCUMENT_PATH)
            dialect = dialect_of_document(json.loads(response.content))
            problem = "its document names neither dialect's git source"
        except (ValueError, RecursionError):
            dialect, problem = None, "its document is not readable JSON"
        except ApiError as error:
            if error.status is None:
                raise
            dialect, problem = None, f"GET {DOCUMENT_PATH} answered {error.status}"
        if dialect is None:
            raise ConfigError(
                f"cannot tell which words {self.endpoint} speaks: {problem}",
                hint=f'set {DIALECT_SETTING} to "seed" or "service"',
            )
        logger.debug("%s speaks the %s dialect", self.endpoint, dialect.value)
        return dialect

    async def _written(self, body: dict[str, Any]) -> dict[str, Any]:
        """BODY (in the seed's words) in the words of the server's dialect."""
        dialect = await self.speaks()
        return body if dialect is Dialect.SEED else translate_body(body, dialect)

    # --- the one request path ---------------------------------------------------------

    async def _send(
        self, method: str, path: str, *, params: Params | None = None, body: Any = None
    ) -> httpx2.Response:
        """One attempt; a non-2xx answer or no answer raises an `ApiError`."""
        if self.dialect is None and path != DOCUMENT_PATH:
            await self.speaks()
        if self.gate is not None:
            await self.gate.wait()
        if self.guard is not None:
            self.guard()  # after the gate's pause: the lock may have been lost during it
        direct, transport = self._direct, self._transport
        try:
            if direct is None or transport is None:
                response = await self._http.request(
                    method, self.base_url + path, params=params, json=body, auth=self._auth
                )
            else:
                response = await direct.send(transport, method, self.base_url + path, params, body)
                if "set-cookie" in response.headers:  # kept and sent back, as httpx2 does
                    self._http.cookies.extract_cookies(response)
                    self._direct = None
        except httpx2.TransportError as exc:
            raise connection_error(method, path, self.endpoint, exc) from exc
        self._reached = True
        logger.debug("%s %s -> %s", method, path, response.status_code)
        if response.is_success:
            return response
        error = error_from_response(method, path, self._auth.scrubbed(response))
        if self.gate is not None and isinstance(error, RateLimitedError):
            self.gate.hold(error.retry_after)
        raise error

    async def _call(
        self, method: str, path: str, *, params: Params | None = None, body: Any = None
    ) -> httpx2.Response:
        """`_send` with retries (for idempotent requests only)."""
        return await run_with_retries(
            self._policy(method),
            lambda: self._send(method, path, params=params, body=body),
            on_retry=self._notify_retry,
        )

    def _policy(self, method: str) -> RetryPolicy:
        """The retry policy of a METHOD request: a read before the control plane has
        answered this client once gets a few attempts only (a wrong URL or a server that
        is not up fails in seconds); writes, and reads once it answered, ride out an
        outage for the whole budget."""
        if method != "GET" or self._reached or self.retry.max_attempts is not None:
            return self.retry
        return replace(self.retry, max_attempts=FIRST_CONTACT_ATTEMPTS)

    def _notify_retry(self, notice: RetryNotice) -> None:
        """Pass NOTICE on, unless it is a 429 the gate already reports as one pause."""
        if self.on_retry is None:
            return
        if self.gate is not None and isinstance(notice.error, RateLimitedError):
            return
        self.on_retry(notice)

    def _parse(self, adapter: TypeAdapter[T], method: str, path: str, r: httpx2.Response) -> T:
        """The body of R as ADAPTER reads it; a deployment's models keep the keys they do
        not know (`model_extra`, `planner.api.unknown`), for a PATCH to send back."""
        extra = READ_EXTRA if adapter in _KEEPING_UNKNOWN else None
        try:
            return adapter.validate_json(r.content, extra=extra)
        except ValidationError as exc:
            if is_too_deep_for_pydantic(exc):
                return self._parse_deep(adapter, method, path, r)
            problem = f"{exc.error_count()} problem(s), first: {exc.errors()[0]['msg']}"
            raise unexpected_body(method, path, r.status_code, problem) from None

    @staticmethod
    def _parse_deep(adapter: TypeAdapter[T], method: str, path: str, r: httpx2.Response) -> T:
        """pydantic's JSON parser stops at 200 levels (free-form labels may go deeper):
        parse with the standard library (Python's recursion limit) and validate that."""
        try:
            data = json.loads(r.content)
        except RecursionError:
            raise unexpected_body(method, path, r.status_code, "nested too deeply") from None
        try:
            extra = READ_EXTRA if adapter in _KEEPING_UNKNOWN else None
            return adapter.validate_python(data, extra=extra)
        except (ValidationError, RecursionError) as exc:
            problem = str(exc.errors()[0]["msg"]) if isinstance(exc, ValidationError) else ""
            raise unexpected_body(
                method, path, r.status_code, problem or "nested too deeply"
            ) from None

    async def _get(self, path: str, adapter: TypeAdapter[T], params: Params | None = None) -> T:
        response = await self._call("GET", path, params=params)
        return self._parse(adapter, "GET", path, response)

    # --- deployments ------------------------------------------------------------------

    async def list_deployments(
        self, *, limit: int = 20, offset: int = 0, **filters: Unpack[DeploymentFilters]
    ) -> DeploymentList:
        params: Params = [("limit", limit), ("offset", offset), *filter_params(filters)]
        return await self._get("/v2/deployments", _DEPLOYMENT_LIST, params)

    def iter_deployments(
        self, *, page_size: int = PAGE_SIZE, **filters: Unpack[DeploymentFilters]
    ) -> AsyncGenerator[Deployment, None]:
        """Every deployment matching `filters`, page after page (see `_paged`)."""

        async def page(offset: int) -> tuple[list[Deployment], int]:
            found = await self.list_deployments(limit=page_size, offset=offset, **filters)
            return found.resources, found.offset

        return paged(page, page_size)

    async def get_deployments_by_ids(self, ids: Iterable[str]) -> dict[str, Deployment]:
        """The deployments among `ids` that exist, by id (chunks of 100, concurrently)."""
        return await by_ids(ids, lambda chunk: self.iter_deployments(deployment_ids=chunk))

    async def progress_by_ids(self, ids: Iterable[str]) -> dict[str, DeploymentProgress]:
        """`get_deployments_by_ids` (the same requests), each deployment read only for
        what a wait looks at: its status and revision ids. Reading whole deployments,
        100 to a poll, was a tenth of an apply's CPU."""

        def listed(chunk: list[str]) -> AsyncGenerator[DeploymentProgress, None]:
            filters = filter_params({"deployment_ids": chunk})

            async def page(offset: int) -> tuple[list[DeploymentProgress], int]:
                params: Params = [("limit", PAGE_SIZE), ("offset", offset), *filters]
                found = await self._get("/v2/deployments", _PROGRESS_LIST, params)
                return found.resources, found.offset

            return paged(page, PAGE_SIZE)

        return await by_ids(ids, listed)

    async def find_by_name(
        self, name: str, *, include_deleting: bool = True, excluding: Collection[str] = ()
    ) -> Deployment | None:
        """The deployment named exactly `name` whose id is not one of EXCLUDING, or None."""
        async with aclosing(self.iter_deployments(name_contains=name)) as deployments:
            async for deployment in deployments:
                if deployment.name != name or deployment.id in excluding:
                    continue
                if include_deleting or not is_being_deleted(deployment.status):
                    return deployment
        return None

    async def create_deployment(self, create: DeploymentCreate) -> Deployment:
        """POST; after a retryable failure, adopt what that attempt made before re-posting.

        A deployment of the same name that is being deleted is not adopted. 409 (name
        taken) raises `ConflictError` for the caller to decide.
        """
        path = "/v2/deployments"
        body = await self._written(create.model_dump(mode="json", exclude_none=True))

        async def attempt() -> Deployment:
            response = await self._send("POST", path, body=body)
            return self._parse(_DEPLOYMENT, "POST", path, response)

        async def adopt() -> Deployment | None:
            found = await self.find_by_name(create.name, include_deleting=False)
            if found is not None:
                logger.info("adopting deployment %s made by a failed attempt", found.id)
            return found

        return await run_with_retries(
            self.retry, attempt, before_retry=adopt, on_retry=self._notify_retry
        )

    async def get_deployment(self, deployment_id: str) -> Deployment:
        return await self._get(f"/v2/deployments/{deployment_id}", _DEPLOYMENT)

    async def patch_deployment(self, deployment_id: str, patch: DeploymentPatch) -> Deployment:
        """PATCH with only the non-null fields (the server ignores nulls anyway). A
        `resource_spec` (which replaces the stored one whole) goes with the keys no model
        knows that PATCH was validated with (`extra=READ_EXTRA`)."""
        path = f"/v2/deployments/{deployment_id}"
        body = patch.model_dump(mode="json", exclude_none=True)
        spec = patch.source_config.resource_spec if patch.source_config is not None else None
        if spec is not None:
            body["source_config"]["resource_spec"] = with_unknown(spec)
        body = await self._written(body)
        response = await self._call("PATCH", path, body=body)
        return self._parse(_DEPLOYMENT, "PATCH", path, response)

    async def delete_deployments(self, ids: Iterable[str]) -> DeleteOutcome:
        """Bulk delete in chunks of 100; see `planner.api.bulk_delete` for the outcome."""
        return await bulk_delete.delete_deployments(self, unique(ids))

    async def send_bulk_delete(self, ids: Sequence[str]) -> httpx2.Response:
        """One `DELETE /v2/deployments` for `ids` (retried); 200 or 207 come back."""
        params: Params = [("deployment_ids", deployment_id) for deployment_id in ids]
        return await self._call("DELETE", "/v2/deployments", params=params)

    # --- catalog ----------------------------------------------------------------------

    async def list_providers(self) -> list[OAuthProvider]:
        from planner.api.support_models import OAuthProvider

        return await self._get("/v2/auth/providers", TypeAdapter(list[OAuthProvider]))

    async def list_integrations(self) -> list[Integration]:
        from planner.api.support_models import Integration

        path = integration_path(await self.speaks(), "install")
        return await self._get(path, TypeAdapter(list[Integration]))

    async def list_repositories(self, integration_id: str) -> list[Repository]:
        from planner.api.support_models import Repository

        path = integration_path(await self.speaks(), f"{integration_id}/repos")
        return await self._get(path, TypeAdapter(list[Repository]))


_DEPLOYMENT: TypeAdapter[Deployment] = TypeAdapter(Deployment)
_PROGRESS_LIST: TypeAdapter[DeploymentProgressList] = TypeAdapter(DeploymentProgressList)
_DEPLOYMENT_LIST: TypeAdapter[DeploymentList] = TypeAdapter(DeploymentList)
# The reads whose models keep what they do not know: whole deployments (a PATCH is built
# from them), not the progress of a wait nor a revision.
_KEEPING_UNKNOWN: tuple[TypeAdapter[Any], ...] = (_DEPLOYMENT, _DEPLOYMENT_LIST)
