"""Health-aware plans: failed or rolling-out revisions, and the unmanaged deployments."""

from __future__ import annotations

import pytest

from planner.errors import PlanError
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.health import RevisionHealth, revision_config
from planner.plan.model import Action, Plan
from planner.render.summary import plan_summary
from planner.state.document import IntentOp, PendingIntent

from .builders import (
    KEY,
    REVISION_ACTIVE,
    REVISION_FAILED,
    deployment_id,
    edit,
    git_desired,
    health_inputs,
    observed_from,
    recorded_from,
    with_lifecycle,
)


def plan_health(status: str, **options: object) -> Plan:
    desired = git_desired()
    health = RevisionHealth(deployment_id("api"), REVISION_FAILED, status, REVISION_ACTIVE)
    return make_plan(
        {"api": desired},
        {"api": recorded_from(desired)},
        {"api": observed_from(desired)},
        digest_key=KEY,
        health={"api": health},
        options=PlanOptions(**options),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("status", ["DEPLOY_FAILED", "BUILD_FAILED", "CREATE_FAILED"])
def test_a_failed_latest_revision_is_submitted_again(status: str) -> None:
    """A failed latest revision plans a new revision re-sending the revision config."""
    plan = plan_health(status)
    change = plan.changes[0]
    assert change.action is Action.NEW_REVISION and plan.has_changes
    assert change.fields == []
    assert REVISION_FAILED in (change.reason or "") and status in (change.reason or "")
    assert change.request_body == {
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"}
    }
    assert plan_summary(plan).startswith("Plan: 0 to create, 0 to update in place, 1 new")


def test_a_revision_in_progress_is_shown_not_submitted() -> None:
    """A latest revision still BUILDING is a rollout: no change, no exit-2 worthy action."""
    plan = plan_health("BUILDING")
    assert plan.changes[0].action is Action.NO_OP and not plan.has_changes
    assert [(r.name, r.status) for r in plan.rollouts] == [("api", "BUILDING")]


def test_a_config_change_on_a_failed_revision_sends_both_in_one_patch() -> None:
    """Fixing the config of a failed deployment: one new revision with the fix."""
    desired = git_desired()
    fixed = git_desired(source_revision_config={"repo_ref": "fixed", "agent_config_path": "a.json"})
    health = RevisionHealth(deployment_id("api"), REVISION_FAILED, "BUILD_FAILED", None)
    plan = make_plan(
        {"api": fixed},
        {"api": recorded_from(desired)},
        {"api": observed_from(desired)},
        digest_key=KEY,
        health={"api": health},
    )
    change = plan.changes[0]
    assert change.action is Action.NEW_REVISION
    assert change.request_body["source_revision_config"]["repo_ref"] == "fixed"
    assert [f.path for f in change.fields] == [
        "source_revision_config.agent_config_path",
        "source_revision_config.repo_ref",
    ]


def test_the_revision_config_falls_back_to_the_deployment_own() -> None:
    """A config without a revision table re-sends the observed one, read-only keys out."""
    desired = git_desired()
    bare = desired.model_copy(update={"source_revision_config": None})
    live = edit(observed_from(desired), {"source_revision_config": {"repo_commit_sha": "abc"}})
    assert revision_config(bare, live) == {"repo_ref": "main", "agent_config_path": "agent.json"}


def test_an_ignored_revision_field_keeps_the_live_value_when_resubmitted() -> None:
    """ignore_changes on repo_ref: the re-sent revision config carries the live repo_ref."""
    desired = with_lifecycle(git_desired(), ignore_changes=["source_revision_config.repo_ref"])
    live = edit(observed_from(git_desired()), {"source_revision_config": {"repo_ref": "hotfix"}})
    assert revision_config(desired, live)["repo_ref"] == "hotfix"


def test_unmanaged_deployments_are_listed_with_the_import_command() -> None:
    """Each unmanaged deployment is listed with `planner import` and the given options;
    it is no change."""
    inputs = health_inputs()
    plan = make_plan(
        {},
        {},
        {},
        digest_key=KEY,
        unmanaged=inputs["unmanaged"],
        options=PlanOptions(command_args=("-c", "prod.toml", "--env", "prod")),
    )
    [entry] = plan.unmanaged
    assert entry.name == "hand-made" and entry.created_at == "2026-01-01T00:00:00Z"
    assert entry.import_command == (
        f"planner import -c prod.toml --env prod hand-made {deployment_id('hand-made')}"
    )
    assert not plan.has_changes


def test_a_narrowed_plan_says_partial_and_never_that_everything_matches() -> None:
    """--only: `partial` with the filters, and a summary that claims no more than it saw."""
    desired = {n: git_desired(n) for n in ("a", "b")}
    recorded = {n: recorded_from(d) for n, d in desired.items()}
    observed = {n: observed_from(d) for n, d in desired.items()}
    plan = make_plan(
        desired, recorded, observed, digest_key=KEY, options=PlanOptions(only=frozenset({"a"}))
    )
    assert plan.partial and plan.only == ["a"] and plan.exclude == []
    line = plan_summary(plan)
    assert "match" not in line and "Partial plan (--only a)" in line
    refresh = make_plan(
        desired,
        recorded,
        observed,
        digest_key=KEY,
        options=PlanOptions(exclude=frozenset({"b"}), refresh_only=True),
    )
    assert "Partial plan (--exclude b)" in plan_summary(refresh)
    assert "Nothing changed outside the planner." not in plan_summary(refresh)


def test_an_unknown_name_suggests_the_closest_one() -> None:
    """`--only apj` names the flag and suggests `api`."""
    with pytest.raises(PlanError) as raised:
        make_plan(
            {"api": git_desired()},
            {},
            {},
            digest_key=KEY,
            options=PlanOptions(only=frozenset({"apj"})),
        )
    assert "--only apj" in raised.value.message
    assert "did you mean 'api'?" in raised.value.details[0]


def test_a_failed_revision_an_interrupted_apply_sent_is_attributed_to_it() -> None:
    """With an update intent in the journal the reason names the interrupted apply."""
    desired = git_desired()
    health = RevisionHealth(deployment_id("api"), REVISION_FAILED, "BUILD_FAILED", None)
    intent = PendingIntent(
        op=IntentOp.UPDATE, name="api", started_at="2026-01-01T00:00:00Z", details={}
    )
    plan = make_plan(
        {"api": desired},
        {"api": recorded_from(desired)},
        {"api": observed_from(desired)},
        digest_key=KEY,
        health={"api": health},
        intents=[intent],
    )
    assert (plan.changes[0].reason or "").endswith("(submitted by an interrupted apply)")
