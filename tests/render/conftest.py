"""Golden files: compare a rendering with tests/render/golden/NAME; UPDATE_GOLDEN=1 rewrites."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.plan.model import Plan
from tests.plan.builders import rich_plan

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture
def plan() -> Plan:
    return rich_plan()


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    def check(name: str, actual: str) -> None:
        path = GOLDEN / name
        if os.environ.get("UPDATE_GOLDEN") == "1":
            path.write_text(actual, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == actual, (
            f"{path.name} differs; if the change is intended: UPDATE_GOLDEN=1 pytest tests/render"
        )

    return check
