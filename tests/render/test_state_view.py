"""The text views of `planner state`."""

from __future__ import annotations

from planner.render.state_view import show_lines
from planner.state.records import RecordedDeployment


def test_state_show_prints_whole_floats_as_integers() -> None:
    """`planner state show` prints a recorded `cpu = 1.0` as the config wrote it: 1."""
    recorded = RecordedDeployment(
        name="api",
        id="00000000-0000-4000-8000-000000000001",
        managed={"source_config": {"resource_spec": {"cpu": 1.0, "cpu_limit": 1.5}}},
    )
    lines = show_lines(recorded)
    assert "    source_config.resource_spec.cpu = 1" in lines
    assert "    source_config.resource_spec.cpu_limit = 1.5" in lines
