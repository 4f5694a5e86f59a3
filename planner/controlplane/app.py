"""The local control plane as a FastAPI application.

Layers, outermost first: the `/api-host` prefix (served in both modes), request metrics,
one identity per request (repeated auth headers that disagree: 400), injected faults, body
bounds (size 413, nesting 422), the service dialect's translation (`--dialect service`
only: `planner.controlplane.dialect`), the hot routes, then FastAPI (auth per route through
`get_context`).
Every error body has the spec's shapes: `{detail: str}`, or for a 422
`{detail: [{loc, msg, type}]}` with no echo of the input (it may hold secrets).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.telemetry import TelemetryConfig
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from planner import __version__
from planner.api.vocabulary import Dialect
from planner.controlplane import artifact_routes, catalog, deployments, listener_routes, metrics
from planner.controlplane.artifacts import MAX_UPLOAD_BYTES, UPLOADS_PATH
from planner.controlplane.body_limits import BodyLimitMiddleware
from planner.controlplane.dialect import ServiceDialect
from planner.controlplane.faults import FaultMiddleware
from planner.controlplane.hot_routes import HotRoutes
from planner.controlplane.identity import SingleIdentityMiddleware
from planner.controlplane.listeners import seed_listeners
from planner.controlplane.metrics import (
    Gauge,
    LabelSet,
    MetricsMiddleware,
    Registry,
    RouteTable,
)
from planner.controlplane.openapi import install_openapi
from planner.controlplane.prefix import PrefixMiddleware
from planner.controlplane.seed import Catalog, load_catalog
from planner.controlplane.settings import SELF_HOSTED_PREFIX, ServerSettings
from planner.controlplane.store import Store
from planner.controlplane.validation import raw_create_problems, validation_errors
from planner.errors import ConfigError

NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def routers_of(settings: ServerSettings) -> tuple[APIRouter, ...]:
    """The app's routers: the same in both dialects but the repository integrations'."""
    integrations = catalog.integrations_router(settings.dialect)
    return (
        deployments.router,
        catalog.router,
        listener_routes.router,
        integrations,
        artifact_routes.router,
        metrics.router,
    )


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
    settings: ServerSettings = request.app.state.settings
    is_json_invalid = any(error.get("type") == "json_invalid" for error in exc.errors())
    if is_json_invalid and settings.dialect is Dialect.SEED:  # the service's is FastAPI's 422
        return JSONResponse({"detail": "The request body is not valid JSON."}, status_code=400)
    problems = validation_problems(exc.errors())
    if request.method == "POST" and request.url.path.endswith("/v2/deployments"):
        problems += rule_problems_besides(problems, exc.body, settings)
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
    routers: tuple[APIRouter, ...] = request.app.state.routers
    routes = [*request.app.routes, *(route for router in routers for route in router.routes)]
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.methods and route.path_regex.match(path):
            methods |= route.methods
    return sorted(methods)


async def on_unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": "Internal server error."}, status_code=500)


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
    catalog_data = checked_catalog(load_catalog(settings.seed_file), settings.dialect)
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
    seed_listeners(app.state.store, catalog_data, settings)
    app.state.metrics.gauges.append(deployments_gauge(app.state.store, settings))
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_unexpected_error)
    routers = app.state.routers = routers_of(settings)
    for router in routers:
        app.include_router(router)
    install_openapi(app)
    add_middleware(app, settings, RouteTable.of_routers(routers))
    return app


def checked_catalog(found: Catalog, dialect: Dialect) -> Catalog:
    """FOUND, when the dialect can send it: the service's integration and repository ids
    are integers."""
    problems = catalog.numeric_id_problems(found) if dialect is Dialect.SERVICE else []
    if problems:
        raise ConfigError(
            "The seed data's ids cannot be sent in the service dialect",
            details=problems,
            hint="The real service's integration and repository ids are numbers: write them "
            "as digits (or serve the seed dialect).",
        )
    return found


def deployments_gauge(store: Store, settings: ServerSettings) -> Gauge:
    """Deployments stored (being deleted included) per workspace that some key may use."""

    def read() -> list[tuple[LabelSet, float]]:
        tenants = sorted({t for ts in settings.api_keys.values() for t in ts})
        with store.snapshot() as tx:
            return [((("tenant_id", t),), tx.count_deployments(t)) for t in tenants]

    return Gauge("controlplane_deployments", "Deployments stored, per workspace.", read)


def add_middleware(app: FastAPI, settings: ServerSettings, routes: RouteTable) -> None:
    """Hot routes innermost, then the dialect's translation, body bounds, then faults
    (after metrics count them), the prefix outermost.

    The single-identity check runs before the rate limiter, so both see one caller; body
    bounds run after the faults, so a rate-limited request is never read; the dialect's
    translation after the bounds, so it reads only bounded bodies, and before the hot
    routes, which answer in the seed's words."""
    app.add_middleware(HotRoutes, settings=settings, store=app.state.store)
    if settings.dialect is Dialect.SERVICE:
        app.add_middleware(ServiceDialect)
    app.add_middleware(BodyLimitMiddleware, path_limits={UPLOADS_PATH: MAX_UPLOAD_BYTES})
    app.add_middleware(FaultMiddleware, settings=settings, registry=app.state.metrics)
    app.add_middleware(SingleIdentityMiddleware)
    app.add_middleware(MetricsMiddleware, registry=app.state.metrics, routes=routes)
    app.add_middleware(PrefixMiddleware, prefix=SELF_HOSTED_PREFIX)
