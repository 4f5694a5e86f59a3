"""The local control plane as a FastAPI application."""

from __future__ import annotations

from fastapi import FastAPI

from planner import __version__
from planner.controlplane import catalog, deployments
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import Store


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    """A control plane app over `settings.db_path`; the store opens now, closes on shutdown."""
    settings = settings or ServerSettings()
    app = FastAPI(title="Deployment Control Plane (local)", version=__version__)
    app.state.settings = settings
    app.state.store = Store(settings)
    app.include_router(deployments.router)
    app.include_router(catalog.router)
    return app
