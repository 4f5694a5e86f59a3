"""`planner schema`: print the config file's JSON Schema, or write every schema to a folder.

`SCHEMAS` is the registry of generated schemas (file name -> builder); other parts of the
planner add theirs (e.g. the plan's) and `--write` writes them all. A builder imports its
module when it is called: `planner schema --help` imports no model.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.errors import PlannerError

SchemaBuilder = Callable[[], dict[str, Any]]


def lazy_builder(module: str, name: str) -> SchemaBuilder:
    """The builder NAME of MODULE, imported when the schema is built."""

    def build() -> dict[str, Any]:
        builder: SchemaBuilder = getattr(importlib.import_module(module), name)
        return builder()

    return build


SCHEMAS: dict[str, SchemaBuilder] = {
    "config.schema.json": lazy_builder("planner.config.json_schema", "config_schema"),
    "plan.schema.json": lazy_builder("planner.plan.saved", "plan_file_json_schema"),
    "apply-events.schema.json": lazy_builder("planner.apply.events", "apply_events_json_schema"),
    "reconcile-events.schema.json": lazy_builder(
        "planner.reconcile.events", "reconcile_events_json_schema"
    ),
}
DEFAULT_SCHEMA = "config.schema.json"


def render_schema(schema: dict[str, Any]) -> str:
    """The exact text written to disk (stable, so staleness is a plain comparison)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, build in SCHEMAS.items():
        target = directory / filename
        target.write_text(render_schema(build()), encoding="utf-8")
        written.append(target)
    return written


def register(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "schema",
        parents=parents,
        help="print or write the JSON Schemas",
        description="Print the config file's JSON Schema, or write every schema to DIR.",
    )
    parser.add_argument("--write", metavar="DIR", default=None, help="write all schemas to DIR")
    parser.add_argument(
        "--name",
        choices=sorted(SCHEMAS),
        default=DEFAULT_SCHEMA,
        help=f"schema to print (default: {DEFAULT_SCHEMA})",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from planner.render.console import make_console

    console = make_console()
    if args.write is None:
        console.print(render_schema(SCHEMAS[args.name]()), end="", markup=False)
        return 0
    try:
        written = write_schemas(Path(args.write))
    except OSError as exc:
        raise PlannerError(f"Cannot write the schemas to {args.write}: {exc}") from exc
    for path in written:
        console.print(f"wrote {path}", markup=False)
    return 0
