"""What the error boundary (`planner.cli.main.report_error`) prints for a failed command:
the error on stderr and, with `--format json`, its JSON document on stdout. Imported only
when a command fails: rich and the renderers are not needed for `planner --help` or a
command that succeeds."""

from __future__ import annotations

import sys

from planner.errors import PlannerError
from planner.render.apply_events import error_event, write_event
from planner.render.console import make_console
from planner.render.errors import error_document, write_error
from planner.render.output import write_json


def write_error_report(error: PlannerError, output_format: str | None, json_lines: bool) -> None:
    """ERROR on stderr; with `--format json`, also its JSON document on stdout (for the
    commands that stream NDJSON events, as their last line: an `error` event)."""
    write_error(make_console(stderr=True), error)
    if output_format != "json":
        return
    if json_lines:
        write_event(sys.stdout, error_event(error))
    else:
        write_json(make_console(), error_document(error))
