"""`planner schema`: print the config file's JSON Schema, or write every schema to a folder.

`SCHEMAS` is the registry of generated schemas (file name -> builder); other parts of the
planner add theirs (e.g. the plan's) and `--write` writes them all.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.apply.events import apply_events_json_schema
from planner.config.json_schema import config_schema
from planner.errors import PlannerError
from planner.plan.saved import plan_file_json_schema
from planner.reconcile.events import reconcile_events_json_schema
from planner.render.console import make_console

SchemaBuilder = Callable[[], dict[str, Any]]

SCHEMAS: dict[str, SchemaBuilder] = {
    "config.schema.json": config_schema,
    "plan.schema.json": plan_file_json_schema,
    "apply-events.schema.json": apply_events_json_schema,
    "reconcile-events.schema.json": reconcile_events_json_schema,
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
