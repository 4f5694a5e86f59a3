"""`planner schema`'s arguments, parsed as a plain function."""

from __future__ import annotations

from planner.cli.commands.schema import DEFAULT_SCHEMA, SCHEMAS, SchemaArgs, parse
from planner.cli.main import build_parser


def test_without_options_the_config_schema_is_printed() -> None:
    """No --write and no --name: print the default schema, a registered one."""
    argv = ["schema"]
    assert parse(build_parser(argv).parse_args(argv)) == SchemaArgs(None, DEFAULT_SCHEMA)
    assert DEFAULT_SCHEMA in SCHEMAS


def test_write_names_the_folder() -> None:
    """--write DIR is kept as the folder to write every schema to."""
    argv = ["schema", "--write", "out"]
    assert parse(build_parser(argv).parse_args(argv)).write == "out"
