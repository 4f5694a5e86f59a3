"""The entry point's error boundary, run as a real process."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli.main import build_parser, main


@pytest.mark.slow
def test_a_closed_stdout_is_not_reported_as_an_internal_error(tmp_path: Path):
    """Output piped to a reader that is gone (`... | head`) exits 1 without an error line."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away before anything was written
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    env["PLANNER_STATE_DIR"] = str(tmp_path / "state")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "planner", "providers", "--format", "json"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert "Error" not in done.stderr and "Traceback" not in done.stderr
    assert "Exception ignored" not in done.stderr


def every_parser(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """PARSER and all its subparsers, at every depth."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found.extend(every_parser(child))
    return found


def test_no_parser_accepts_an_abbreviated_option() -> None:
    """`--dest` must not run `--destroy`: abbreviation is off on every parser."""
    parsers = every_parser(build_parser())
    assert len(parsers) > 12
    assert all(p.allow_abbrev is False for p in parsers)


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--dest"],
        ["plan", "--detailed"],
        ["apply", "--auto"],
        ["destroy", "--auto-app"],
        ["state", "list", "--sta", "x"],
    ],
)
def test_an_abbreviated_option_is_a_usage_error(argv: list[str], capsys) -> None:
    """An abbreviation is refused as an unrecognized argument (exit 2, nothing run)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
