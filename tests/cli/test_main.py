"""The entry point's error boundary, run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


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
