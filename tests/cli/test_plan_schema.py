"""`planner schema --write` writes the plan's JSON Schema beside the config's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.plan.saved import plan_file_json_schema


def test_write_includes_the_plan_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--write DIR writes config.schema.json and plan.schema.json (the plan file's schema)."""
    assert main(["schema", "--write", str(tmp_path)]) == 0
    assert {"config.schema.json", "plan.schema.json"} <= {p.name for p in tmp_path.iterdir()}
    assert json.loads((tmp_path / "plan.schema.json").read_text()) == plan_file_json_schema()
    assert f"wrote {tmp_path / 'plan.schema.json'}" in capsys.readouterr().out


def test_plan_schema_can_be_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """`planner schema --name plan.schema.json` prints the plan schema."""
    assert main(["schema", "--name", "plan.schema.json"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"] == "plan.schema.json"
