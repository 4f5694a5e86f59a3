"""The arguments of `planner schema`, and `SCHEMAS`, the registry of generated schemas (file
name -> builder): other parts of the planner add theirs (e.g. the plan's), `--name`
chooses among them and `--write` writes them all. A builder imports its module when it is
called: `planner schema --help` imports no model.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
    "rollback.schema.json": lazy_builder("planner.apply.rollback_report", "rollback_json_schema"),
}
DEFAULT_SCHEMA = "config.schema.json"


@dataclass(frozen=True)
class SchemaArgs:
    """What `planner schema` was given: the folder to write every schema to (None: print
    the one NAME names)."""

    write: str | None
    name: str = DEFAULT_SCHEMA


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
    parser.set_defaults(parse=parse, run_module="schema")


def parse(namespace: argparse.Namespace) -> SchemaArgs:
    return SchemaArgs(namespace.write, namespace.name)
