"""`planner schema`: print the config file's JSON Schema, or write every schema (the
registry, `planner.cli.commands.schema.SCHEMAS`) to a folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner.cli.commands.schema import SCHEMAS, SchemaArgs
from planner.errors import PlannerError
from planner.render.console import make_console


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


def run(args: SchemaArgs) -> int:
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
