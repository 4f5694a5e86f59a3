"""The per-state key that seals saved plans: random, 0600, beside the state, refused if loose."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from planner.errors import StateError
from planner.state.plan_key import ensure_plan_key, plan_key_path, read_plan_key


def test_created_once_with_mode_0600_beside_the_state(tmp_path: Path) -> None:
    """The first call creates 32 random bytes (mode 0600); later calls read the same key."""
    state = tmp_path / "state" / "planner.state.json"
    key = ensure_plan_key(state)
    path = plan_key_path(state)
    assert path == tmp_path / "state" / "planner.state.json.plan-key"
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert ensure_plan_key(state) == key == read_plan_key(state)


def test_each_state_gets_its_own_key(tmp_path: Path) -> None:
    """Two states never share a key (a plan sealed for one does not verify on the other)."""
    assert ensure_plan_key(tmp_path / "a.state.json") != ensure_plan_key(tmp_path / "b.json")


def test_missing_key_reads_as_none(tmp_path: Path) -> None:
    """No key file: None (apply then refuses the plan as unverifiable)."""
    assert read_plan_key(tmp_path / "planner.state.json") is None


def test_a_key_others_can_write_or_read_is_refused(tmp_path: Path) -> None:
    """A key file with group/other permissions is a StateError naming it and the fix."""
    state = tmp_path / "planner.state.json"
    ensure_plan_key(state)
    os.chmod(plan_key_path(state), 0o644)
    with pytest.raises(StateError, match=r"plan-key.*0644") as caught:
        read_plan_key(state)
    assert "chmod 600" in (caught.value.hint or "")


def test_a_malformed_key_is_refused(tmp_path: Path) -> None:
    """A key file that is not 64 hex digits is a StateError, never a weak key."""
    state = tmp_path / "planner.state.json"
    path = plan_key_path(state)
    path.write_text("short\n")
    os.chmod(path, 0o600)
    with pytest.raises(StateError, match="not a valid plan key"):
        read_plan_key(state)
