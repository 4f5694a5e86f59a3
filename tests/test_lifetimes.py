"""`long_lived_objects`: what a command builds to keep (its modules, config, plan) is
built without cyclic collections and then frozen out of them; `short_lived_objects`: an
apply's phase collects its youngest generation less often. The collector is left as it
was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from planner.lifetimes import long_lived_objects, short_lived_objects


@pytest.fixture
def thawed() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("thawed")
def test_objects_built_inside_are_frozen_and_the_collector_restored() -> None:
    assert gc.isenabled()
    with long_lived_objects():
        assert not gc.isenabled()
        kept = [{"n": n} for n in range(1_000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


@pytest.mark.usefixtures("thawed")
def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with long_lived_objects():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_phase_of_short_lived_objects_collects_the_young_less_often() -> None:
    before = gc.get_threshold()
    with short_lived_objects(threshold=12_345):
        assert gc.get_threshold() == (12_345, *before[1:])
    assert gc.get_threshold() == before


def test_a_higher_threshold_already_set_is_kept() -> None:
    before = gc.get_threshold()
    gc.set_threshold(50_000, *before[1:])
    try:
        with short_lived_objects(threshold=10_000):
            assert gc.get_threshold()[0] == 50_000
        assert gc.get_threshold()[0] == 50_000
    finally:
        gc.set_threshold(*before)
