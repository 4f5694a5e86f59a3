"""Moves: which renamed addresses the pure plan takes for the same deployment."""

from __future__ import annotations

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Action
from planner.plan.moves import find_moves
from planner.render.summary import plan_summary
from planner.state.moves import deposed_address
from planner.state.records import RecordedDeployment
from tests.plan.builders import KEY, git_desired, observed_from, recorded_from


def renamed(address: str, old: str, **overrides: object) -> DesiredDeployment:
    """OLD's desired deployment under ADDRESS, keeping OLD as its remote name."""
    return git_desired(old, **overrides).model_copy(update={"name": address, "remote_name": old})


def test_a_new_address_naming_a_recorded_deployment_moves_it() -> None:
    """`api` left the config, `gateway` names the remote `api`: a move, nothing to send."""
    old = git_desired("api")
    new = renamed("gateway", "api")
    plan = make_plan(
        {"gateway": new}, {"api": recorded_from(old)}, {"api": observed_from(old)}, digest_key=KEY
    )
    (change,) = plan.changes
    assert (change.name, change.moved_from, change.action) == ("gateway", "api", Action.NO_OP)
    assert plan.summary.moved == 1 and plan.has_changes
    assert "1 to move" in plan_summary(plan)


def test_a_different_source_is_not_a_move() -> None:
    """The same remote name with another source is another deployment: delete + create."""
    old = git_desired("api")
    new = renamed("gateway", "api", source="internal_docker", source_config={})
    assert find_moves({"gateway": new}, {"api": recorded_from(old)}) == {}


def test_two_candidates_for_one_remote_name_are_no_move() -> None:
    """Two new addresses naming the same remote deployment: ambiguous, planned as before."""
    old = git_desired("api")
    desired = {"a": renamed("a", "api"), "b": renamed("b", "api")}
    assert find_moves(desired, {"api": recorded_from(old)}) == {}


def test_a_destroy_plan_never_moves() -> None:
    """`--destroy` deletes what the state records, under the recorded address."""
    old = git_desired("api")
    plan = make_plan(
        {"gateway": renamed("gateway", "api")},
        {"api": recorded_from(old)},
        {"api": observed_from(old)},
        digest_key=KEY,
        options=PlanOptions(destroy=True),
    )
    assert [(c.name, c.action, c.moved_from) for c in plan.changes] == [
        ("api", Action.DELETE, None)
    ]


def test_replace_names_the_moved_address() -> None:
    """`--replace gateway` on a moved deployment is known: it replaces the moved one."""
    old = git_desired("api")
    plan = make_plan(
        {"gateway": renamed("gateway", "api")},
        {"api": recorded_from(old)},
        {"api": observed_from(old)},
        digest_key=KEY,
        options=PlanOptions(replace={"gateway"}),
    )
    (change,) = plan.changes
    assert (change.action, change.moved_from, change.deployment_id) == (
        Action.REPLACE,
        "api",
        recorded_from(old).id,
    )


def test_a_move_with_an_in_place_change_is_an_update_of_the_moved_deployment() -> None:
    """`build_on_push` flipped with the rename: one in-place update carrying `moved_from`."""
    old = git_desired("api")
    source_config = {**old.source_config.model_dump(exclude_unset=True), "build_on_push": True}
    new = renamed("gateway", "api", source_config=source_config)
    plan = make_plan(
        {"gateway": new}, {"api": recorded_from(old)}, {"api": observed_from(old)}, digest_key=KEY
    )
    (change,) = plan.changes
    assert (change.action, change.moved_from) == (Action.UPDATE, "api")
    assert [f.path for f in change.fields] == ["source_config.build_on_push"]
    assert change.request_body == {"source_config": {"build_on_push": True}}


def deposed_api() -> tuple[str, dict[str, RecordedDeployment], dict[str, Deployment | None]]:
    """`api`'s old deployment, kept by a create-before-destroy replace under its deposed
    address (remote name `api`): that address, the state and what is live."""
    old = git_desired("api")
    deposed = deposed_address("api", "old-id")
    record = recorded_from(old).model_copy(update={"name": deposed, "id": "old-id"})
    live = observed_from(old).model_copy(update={"id": "old-id"})
    return deposed, {deposed: record}, {deposed: live}


def test_a_deposed_record_is_deleted_and_goes_with_its_successor() -> None:
    """The old deployment a create-before-destroy replace kept (`api~deposed-ID`) plans a
    delete saying whose it is, and `--only api` / `--exclude api` take it along."""
    deposed, recorded, observed = deposed_api()
    desired = {"api": renamed("api", "api-green"), "tools": git_desired("tools")}
    plan = make_plan(desired, recorded, observed, digest_key=KEY)
    actions = {c.name: (c.action, c.moved_from) for c in plan.changes}
    assert actions == {
        "api": (Action.CREATE, None),
        "tools": (Action.CREATE, None),
        deposed: (Action.DELETE, None),
    }
    (delete,) = plan.changes_with(Action.DELETE)
    assert "the old deployment of api" in delete.notes[-1]
    only = make_plan(desired, recorded, observed, digest_key=KEY, options=PlanOptions(only={"api"}))
    assert [c.name for c in only.changes] == ["api", deposed]
    skip = PlanOptions(exclude={"api"})
    assert [
        c.name for c in make_plan(desired, recorded, observed, digest_key=KEY, options=skip).changes
    ] == ["tools"]


def test_a_new_address_naming_a_deposed_deployment_takes_it_back() -> None:
    """A new address that names the deposed deployment's remote name with its source
    moves it (the config wants that deployment kept), rather than deleting it and then
    creating one under a name it still holds."""
    deposed, recorded, observed = deposed_api()
    desired = {"api": renamed("api", "api-green"), "gateway": renamed("gateway", "api")}
    plan = make_plan(desired, recorded, observed, digest_key=KEY)
    actions = {c.name: (c.action, c.moved_from) for c in plan.changes}
    assert actions == {"api": (Action.CREATE, None), "gateway": (Action.NO_OP, deposed)}
    assert plan.errors == []


def test_the_live_remote_name_of_a_re_keyed_record_makes_the_move() -> None:
    """A record `state mv` re-keyed (`worker` -> `runner`, no `name` recorded): its
    remote name is the one it has on the server, so the config's `worker` moves it back."""
    old = git_desired("worker")
    record = recorded_from(old).model_copy(update={"name": "runner"})
    live = observed_from(old)
    assert find_moves({"worker": old}, {"runner": record}) == {}  # the address says `runner`
    assert find_moves({"worker": old}, {"runner": record}, {"runner": live}) == {"worker": "runner"}
    plan = make_plan({"worker": old}, {"runner": record}, {"runner": live}, digest_key=KEY)
    (change,) = plan.changes
    assert (change.name, change.action, change.moved_from) == ("worker", Action.NO_OP, "runner")
