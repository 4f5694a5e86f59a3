"""Name collisions: the pure plan refuses a change that would create under a remote name
another live deployment holds, and says what would work instead."""

from __future__ import annotations

from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Action, Plan
from planner.state.moves import deposed_address
from tests.plan.builders import (
    KEY,
    deployment_id,
    git_desired,
    observed_from,
    recorded_from,
    with_lifecycle,
)

OTHER_ID = "00000000-0000-4000-8000-0000000000aa"


def named(address: str, remote: str, **overrides: object) -> DesiredDeployment:
    """ADDRESS's git_host deployment under the remote name REMOTE."""
    return git_desired(address, **overrides).model_copy(update={"remote_name": remote})


def live(desired: DesiredDeployment, remote: str) -> Deployment:
    """DESIRED as the server holds it, named REMOTE."""
    return observed_from(desired).model_copy(update={"name": remote})


def renamed_worker(new: str, *, cbd: bool = False, **options: Any) -> Plan:
    """`worker` (live as `worker-dev`) renamed NEW in the config, `api` live as
    `api-main` and kept; `other` (OTHER_ID) holds `worker-prod` for another state."""
    worker = with_lifecycle(named("worker", new), create_before_destroy=cbd)
    api = named("api", "api-main")
    return make_plan(
        {"worker": worker, "api": api},
        {"worker": recorded_from(named("worker", "worker-dev")), "api": recorded_from(api)},
        {"worker": live(worker, "worker-dev"), "api": live(api, "api-main")},
        digest_key=KEY,
        options=PlanOptions(**options),
        unmanaged_existing={"worker": OTHER_ID} if new == "worker-prod" else {},
        managed_elsewhere={OTHER_ID: "planner.prod"},
    )


def test_a_replace_onto_a_name_another_state_manages_is_refused_with_or_without_cbd() -> None:
    """The create half of the replace would collide: an error on `name`, no replace."""
    for cbd in (False, True):
        plan = renamed_worker("worker-prod", cbd=cbd, replace={"worker"})
        assert [c.action for c in plan.changes] == [Action.NO_OP]  # api only
        (error,) = plan.errors
        assert (error.name, error.path) == ("worker", "name")
        assert error.message == (
            f"worker cannot be replaced as 'worker-prod': worker-prod already exists "
            f"(id {OTHER_ID}) and is managed by the state planner.prod"
        )
        assert error.hint is not None and 'set name back to "worker-dev"' in error.hint


def test_a_replace_onto_the_name_of_a_kept_address_is_refused() -> None:
    """`worker` renamed to `api-main`, which `api` (kept by the config) holds."""
    plan = renamed_worker("api-main", replace={"worker"})
    (error,) = plan.errors
    assert error.message.endswith(
        f"api-main is the remote name of api (id {deployment_id('api')}) in this state"
    )


def test_a_free_new_name_is_replaced_and_a_kept_name_is_never_checked() -> None:
    """A free new name plans the replace; a replace keeping its name (freed by its own
    delete) is never a collision, though a deployment of that name is live."""
    assert [c.action for c in renamed_worker("worker-blue", replace={"worker"}).changes] == [
        Action.NO_OP,
        Action.REPLACE,
    ]
    same = renamed_worker("worker-dev", replace={"worker"})
    assert same.errors == [] and Action.REPLACE in {c.action for c in same.changes}


def test_the_immutable_name_hint_offers_no_replace_onto_a_taken_name() -> None:
    """Without --replace: the error on `name` says who holds the new name, not --replace."""
    (error,) = renamed_worker("worker-prod").errors
    assert error.path == "name" and error.hint is not None
    assert "--replace" not in error.hint
    assert error.hint.startswith(
        f"worker-prod already exists (id {OTHER_ID}) and is managed by the state planner.prod, "
        "so a replace could not create it"
    )


def test_the_immutable_hint_says_what_a_replace_does_under_create_before_destroy() -> None:
    """cbd and a new name: create first, then delete; cbd and the same name (another
    immutable change): a new name is needed too; without cbd: delete and re-create."""
    (error,) = renamed_worker("worker-blue", cbd=True).errors
    assert error.hint is not None
    assert error.hint.startswith("to create 'worker-blue' first, then delete 'worker-dev'")
    worker = with_lifecycle(
        named("worker", "worker-dev", source_config={"integration_id": OTHER_ID}),
        create_before_destroy=True,
    )
    before = named("worker", "worker-dev")
    plan = make_plan(
        {"worker": worker},
        {"worker": recorded_from(before)},
        {"worker": live(before, "worker-dev")},
        digest_key=KEY,
    )
    (error,) = plan.errors
    assert error.path == "source_config.integration_id" and error.hint is not None
    assert "give it a new remote name too" in error.hint
    (plain,) = renamed_worker("worker-blue").errors
    assert plain.hint is not None and plain.hint.startswith("to delete and re-create worker")


def test_a_create_under_the_name_of_a_kept_address_is_refused() -> None:
    """A new address named like a recorded address the config keeps (renamed away, so
    the config itself is valid): no create, an error naming that address."""
    api = named("api", "api-v2")
    tools = named("tools", "api-main")
    plan = make_plan(
        {"api": api, "tools": tools},
        {"api": recorded_from(api)},
        {"api": live(api, "api-main")},
        digest_key=KEY,
    )
    assert not plan.changes_with(Action.CREATE)
    taken = [e for e in plan.errors if e.name == "tools"]
    assert [e.message for e in taken] == [
        f"tools would be created as api-main, the remote name of api (id {deployment_id('api')})"
        ", which the config keeps"
    ]


def test_a_create_under_the_name_of_a_deposed_deployment_of_another_source_is_refused() -> None:
    """The deposed old deployment still holds `api`; a new `gateway` of another source
    cannot take its name (not a move): an error, with a way that works."""
    old = git_desired("api")
    deposed = deposed_address("api", "old-id")
    record = recorded_from(old).model_copy(update={"name": deposed, "id": "old-id"})
    gateway = named("gateway", "api", source="internal_docker", source_config={})
    plan = make_plan(
        {"gateway": gateway},
        {deposed: record},
        {deposed: live(old, "api").model_copy(update={"id": "old-id"})},
        digest_key=KEY,
    )
    assert [(c.name, c.action) for c in plan.changes] == [(deposed, Action.DELETE)]
    (error,) = plan.errors
    assert "the old deployment a create-before-destroy replace keeps" in error.message
    assert error.hint == (
        f"give [deployments.gateway] a remote name no deployment holds, or add it once "
        f"{deposed} is deleted"
    )


def test_going_back_to_a_deposed_deployment_is_said_with_the_options_given() -> None:
    """`worker` renamed back to the name its own deposed old deployment holds: the hint
    says how to go back, as a command repeating the options of the plan (`--env dev`)."""
    blue, green = named("worker", "worker-blue"), named("worker", "worker-green")
    deposed = deposed_address("worker", "old-id")
    record = recorded_from(blue).model_copy(update={"name": deposed, "id": "old-id"})
    plan = make_plan(
        {"worker": blue},
        {"worker": recorded_from(green), deposed: record},
        {
            "worker": live(green, "worker-green"),
            deposed: live(blue, "worker-blue").model_copy(update={"id": "old-id"}),
        },
        digest_key=KEY,
        options=PlanOptions(command_args=("--env", "dev")),
    )
    (error,) = plan.errors
    assert error.path == "name" and error.hint is not None and "--replace" not in error.hint
    assert f"to go back to {deposed}, `planner state rm --env dev worker`" in error.hint
