"""The garbage collector's policy of a command (`planner.cli.collector`): what a command
that runs once builds to keep (its modules, config, plan) is built without cyclic
collections and then frozen out of them; a command that runs until stopped, and code run
outside a command, freeze nothing; an execution collects its youngest generation less
often. The collector is left as it was found, and so is the policy."""

from __future__ import annotations

import ast
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.cli.collector import (
    RUN_UNTIL_STOPPED,
    long_lived_objects,
    policy_for,
    short_lived_objects,
)

PLANNER = Path(__file__).resolve().parents[2] / "planner"


@pytest.fixture
def thawed() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("thawed")
def test_objects_built_inside_are_frozen_and_the_collector_restored() -> None:
    """Under a run-once command's policy, objects built inside `long_lived_objects` are
    built with the collector off, then frozen; the collector is enabled again."""
    assert gc.isenabled()
    with policy_for("plan"), long_lived_objects():
        assert not gc.isenabled()
        kept = [{"n": n} for n in range(1_000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


@pytest.mark.usefixtures("thawed")
def test_a_disabled_collector_stays_disabled() -> None:
    """A collector the caller had disabled is not enabled by `long_lived_objects`."""
    gc.disable()
    try:
        with policy_for("apply"), long_lived_objects():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.usefixtures("thawed")
@pytest.mark.parametrize("command", sorted(RUN_UNTIL_STOPPED))
def test_a_command_that_runs_until_stopped_freezes_nothing(command: str) -> None:
    """Under `reconcile`'s or `serve`'s policy the objects a cycle builds are neither
    built with the collector off nor frozen (a controller's memory would grow with every
    cycle)."""
    with policy_for(command):
        with long_lived_objects():
            assert gc.isenabled()
            built = [{"n": n} for n in range(1_000)]
        assert gc.get_freeze_count() < len(built)


@pytest.mark.usefixtures("thawed")
def test_outside_a_command_nothing_is_frozen() -> None:
    """Library code run by a caller that chose no policy (a test, an embedding program)
    leaves the caller's collector alone."""
    with long_lived_objects():
        assert gc.isenabled()
        built = [{"n": n} for n in range(1_000)]
    assert gc.get_freeze_count() < len(built)


def test_the_policy_before_a_command_is_back_after_it() -> None:
    """A command's policy lasts as long as it runs: a second command in the same process
    (the in-process CLI tests) starts from the policy there was before."""
    with policy_for("plan"):
        with policy_for("reconcile"), long_lived_objects():
            assert gc.isenabled()
        gc.unfreeze()
        with long_lived_objects():
            assert not gc.isenabled()
        gc.unfreeze()
    with long_lived_objects():
        assert gc.isenabled()


def test_a_phase_of_short_lived_objects_collects_the_young_less_often() -> None:
    """`short_lived_objects` raises the youngest generation's threshold, then restores it."""
    before = gc.get_threshold()
    with short_lived_objects(threshold=12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before


def test_a_higher_threshold_already_set_is_kept() -> None:
    """A threshold higher than `short_lived_objects`' is not lowered."""
    before = gc.get_threshold()
    gc.set_threshold(50_000, *before[1:])
    try:
        with short_lived_objects(threshold=10_000):
            assert gc.get_threshold()[0] == 50_000
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.set_threshold(*before)


def test_no_library_module_controls_the_collector() -> None:
    """Only the command layer (`planner/cli/`) imports `gc`: the library never changes
    the caller's collector."""
    importers = []
    for path in PLANNER.rglob("*.py"):
        if path.is_relative_to(PLANNER / "cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module == "gc":
                names = ["gc"]
            if "gc" in names:
                importers.append(str(path.relative_to(PLANNER)))
    assert importers == []
