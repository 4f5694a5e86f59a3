"""`long_lived_objects`: what a command builds to keep (its modules, config, plan) is
built without cyclic collections and then frozen out of them; the collector is left as
it was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from planner.lifetimes import long_lived_objects


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
