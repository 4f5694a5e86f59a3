"""The OpenAPI document of the local control plane, checked in as
`schemas/control-plane.openapi.json`.

Regenerate it with `python -m planner.controlplane.openapi` (a test fails when the
checked-in copy is out of date). The document is FastAPI's, with the 422 shape narrowed
to the spec's `{loc, msg, type}` (we never send `input` or `ctx`), values bounded as the
server bounds them (`planner.controlplane.schema_bounds`), and the create and PATCH
bodies narrowed to what the server's mode accepts, one variant per source
(`planner.controlplane.create_schema`, `planner.controlplane.patch_schema`). In the
service dialect it is rewritten in that dialect's words and facts
(`planner.controlplane.dialect_document`); the checked-in copy is the seed dialect's.
The app serves it at `/openapi.json`, and Swagger UI at `/docs`.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from planner.api.vocabulary import Dialect
from planner.controlplane.create_schema import install_create_variants
from planner.controlplane.dialect_document import name_dialect, service_document
from planner.controlplane.patch_schema import install_patch_variants
from planner.controlplane.schema_bounds import install_value_bounds

SCHEMA_PATH = Path("schemas") / "control-plane.openapi.json"
REGENERATE_COMMAND = "python -m planner.controlplane.openapi"


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document for `app`: ValidationError limited to loc/msg/type, and one
    create body per source of the app's mode."""
    document = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    schemas = document["components"]["schemas"]
    error = schemas.get("ValidationError")
    if error is not None:
        error["properties"] = {k: error["properties"][k] for k in ("loc", "msg", "type")}
        error["required"] = ["loc", "msg", "type"]
    install_value_bounds(schemas)
    install_create_variants(schemas, app.state.settings.mode)
    install_patch_variants(schemas, app.state.settings.mode)
    if app.state.settings.dialect is Dialect.SERVICE:
        return service_document(document)
    name_dialect(document, Dialect.SEED)
    return document


def install_openapi(app: FastAPI) -> None:
    """Make `app.openapi()` return (and cache) the narrowed document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def render_openapi() -> str:
    """The checked-in text: sorted keys, indent 2, trailing newline."""
    from planner.controlplane.app import create_app
    from planner.controlplane.settings import ServerSettings

    with tempfile.TemporaryDirectory() as scratch:  # the app opens a store; keep it out of state/
        app = create_app(ServerSettings(db_path=Path(scratch) / "openapi.db"))
        try:
            return json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n"
        finally:
            app.state.store.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else SCHEMA_PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_openapi(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
