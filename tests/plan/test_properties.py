"""Properties of make_plan over generated worlds (strategies in tests/plan/strategies.py)."""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any

import jsonpatch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from planner.plan.diff import make_plan
from planner.plan.model import Action

from .builders import KEY, apply_plan
from .strategies import World, worlds

FAST = settings(max_examples=150, deadline=None)


def plan_of(world: World):
    return make_plan(world.desired, world.recorded, world.observed, digest_key=KEY)


@FAST
@given(worlds())
def test_replanning_after_apply_is_empty(world: World) -> None:
    """Applying a plan's effect (PATCH semantics) and planning again changes nothing."""
    plan = plan_of(world)
    assume(not plan.errors)
    recorded, observed = apply_plan(plan, world.desired, world.observed)
    again = make_plan(world.desired, recorded, observed, digest_key=KEY)
    assert [
        (c.name, c.action, c.fields) for c in again.changes if c.action is not Action.NO_OP
    ] == []
    assert again.drift == []
    assert again.errors == []
    assert sorted(recorded) == sorted(world.desired)


@FAST
@given(worlds())
def test_each_patch_turns_before_into_after(world: World) -> None:
    """RFC 6902: applying a change's patch to its `before` gives its `after`."""
    for change in plan_of(world).changes:
        assert jsonpatch.apply_patch(change.before, change.patch) == change.after


@FAST
@given(worlds(), st.randoms(use_true_random=False))
def test_the_plan_does_not_depend_on_mapping_order(world: World, random: Random) -> None:
    """Shuffling the config, state and observed mappings gives an equal plan."""

    def shuffled(mapping: Mapping[str, Any]) -> dict[str, Any]:
        items = list(mapping.items())
        random.shuffle(items)
        return dict(items)

    again = make_plan(
        shuffled(world.desired), shuffled(world.recorded), shuffled(world.observed), digest_key=KEY
    )
    assert again == plan_of(world)
    assert again.model_dump_json() == plan_of(world).model_dump_json()
