"""The local control plane as a FastAPI application.

Layers, outermost first: the self-hosted `/api-host` prefix, request metrics, one
identity per request (repeated auth headers that disagree: 400), injected faults, body
bounds (size 413, nesting 422), then FastAPI (auth per route through `get_context`).
Every error body has the spec's shapes: `{detail: str}`, or for a 422
`{detail: [{loc, msg, type}]}` with no echo of the input (it may hold secrets).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.telemetry import TelemetryConfig
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from planner import __version__
from planner.api.rules import Mode
from planner.controlplane import artifact_routes, catalog, deployments, metrics
from planner.controlplane.artifacts import MAX_UPLOAD_BYTES, UPLOADS_PATH
from planner.controlplane.body_limits import BodyLimitMiddleware
from planner.controlplane.faults import FaultMiddleware
from planner.controlplane.hot_routes import HotRoutes
from planner.controlplane.identity import SingleIdentityMiddleware
from planner.controlplane.metrics import (
    Gauge,
    LabelSet,
    MetricsMiddleware,
    Registry,
    RouteTable,
)
from planner.controlplane.openapi import install_openapi
from planner.controlplane.seed import load_catalog
from planner.controlplane.settings import SELF_HOSTED_PREFIX, ServerSettings
from planner.controlplane.store import Store
from planner.controlplane.validation import raw_create_problems, validation_errors

ROUTERS = (deployments.router, catalog.router, artifact_routes.router, metrics.router)
NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def validation_problems(errors: Any) -> list[dict[str, Any]]:
    """Only `loc`, `msg` and `type` of each problem: `input`/`ctx`/`url` could echo secrets."""
    return [
        {
            "loc": list(error.get("loc", ())),
            "msg": str(error["msg"]).removeprefix("Value error, "),  # pydantic's wrapper
            "type": str(error["type"]),
        }
        for error in errors
    ]


async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    if any(error.get("type") == "json_invalid" for error in exc.errors()):
        return JSONResponse({"detail": "The request body is not valid JSON."}, status_code=400)
    problems = validation_problems(exc.errors())
    if request.method == "POST" and request.url.path.endswith("/v2/deployments"):
        problems += rule_problems_besides(problems, exc.body, request.app.state.settings)
    return JSONResponse({"detail": problems}, status_code=422)


def rule_problems_besides(
    shape: list[dict[str, Any]], raw: Any, settings: ServerSettings
) -> list[dict[str, Any]]:
    """A create's rule problems at locations the shape problems do not already name."""
    named = {tuple(problem["loc"]) for problem in shape}
    return [
        problem
        for problem in validation_errors(raw_create_problems(raw, settings))
        if tuple(problem["loc"]) not in named
    ]


async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = exc.headers
    if exc.status_code == 405:
        headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(request))}
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's)."""
    path = request.scope["path"]
    routes = [*request.app.routes, *(route for router in ROUTERS for route in router.routes)]
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return sorted(methods)


async def on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": "Internal server error."}, status_code=500)


class PrefixMiddleware:
    """Serve the API under `prefix` too, as self-hosted installs do (`/api-host/v2/...`)."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] == "http" and path.startswith(self.prefix + "/"):
            scope = {**scope, "path": path[len(self.prefix) :]}
            scope["raw_path"] = scope["path"].encode()
        await self.app(scope, receive, send)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    try:
        yield
    finally:
        app.state.store.close()


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    """A control plane app over `settings.db_path`; the store opens now, closes on shutdown.

    The seed file is read here, so a bad one fails before the server listens.
    """
    settings = settings or ServerSettings()
    catalog_data = load_catalog(settings.seed_file)
    app = FastAPI(
        title="Deployment Control Plane (local)",
        version=__version__,
        lifespan=lifespan,
        # Served without a key, as the real service does (the document holds no data);
        # /docs is FastAPI's Swagger UI page, which a browser loads from a CDN.
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
        # FastAPI's native OpenTelemetry asks the global providers whether they are
        # configured on every request (~7 us, environment look-ups); nothing here
        # configures them, so it would never record anything.
        telemetry=NO_TELEMETRY,
    )
    app.state.settings = settings
    app.state.catalog = catalog_data
    app.state.metrics = Registry(mode=str(settings.mode))
    app.state.store = Store(settings)
    app.state.metrics.gauges.append(deployments_gauge(app.state.store, settings))
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected_error)
    for router in ROUTERS:
        app.include_router(router)
    install_openapi(app)
    add_middleware(app, settings)
    return app


def deployments_gauge(store: Store, settings: ServerSettings) -> Gauge:
    """Deployments stored (being deleted included) per workspace that some key may use."""

    def read() -> list[tuple[LabelSet, float]]:
        tenants = sorted({t for ts in settings.api_keys.values() for t in ts})
        with store.snapshot() as tx:
            return [((("tenant_id", t),), tx.count_deployments(t)) for t in tenants]

    return Gauge("controlplane_deployments", "Deployments stored, per workspace.", read)


def add_middleware(app: FastAPI, settings: ServerSettings) -> None:
    """Hot routes innermost, then body bounds, then faults (after metrics count them), the
    prefix outermost.

    The single-identity check runs before the rate limiter, so both see one caller; body
    bounds run after the faults, so a rate-limited request is never read."""
    app.add_middleware(HotRoutes, settings=settings, store=app.state.store)
    app.add_middleware(BodyLimitMiddleware, path_limits={UPLOADS_PATH: MAX_UPLOAD_BYTES})
    app.add_middleware(FaultMiddleware, settings=settings, registry=app.state.metrics)
    app.add_middleware(SingleIdentityMiddleware)
    routes = RouteTable.of_routers(ROUTERS)
    app.add_middleware(MetricsMiddleware, registry=app.state.metrics, routes=routes)
    if settings.mode == Mode.SELF_HOSTED:
        app.add_middleware(PrefixMiddleware, prefix=SELF_HOSTED_PREFIX)
