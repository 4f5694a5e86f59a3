"""The time math of revisions and deployments, as pure functions of timestamps."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.api.models import DeploymentStatus, RevisionStatus
from planner.controlplane.lifecycle import (
    RevisionTiming,
    StatusAt,
    active_revision,
    database_seconds,
    deployment_status,
    failure_mark,
    is_unfinished,
    is_waiting_for_artifact,
    revision_status,
    timeline,
)

S = RevisionStatus
T0 = 1000.0


def timing(
    source: str = "git_host", skipped_at: float | None = None, **config: Any
) -> RevisionTiming:
    config = config or {"repo_ref": "main", "agent_config_path": "a.json"}
    return RevisionTiming(
        source=source,
        source_revision_config=config,
        created_at=T0,
        build_seconds=1.0,
        deploy_seconds=2.0,
        skipped_at=skipped_at,
    )


def walk(t: RevisionTiming, offsets: list[float]) -> list[RevisionStatus]:
    return [revision_status(t, T0 + o).status for o in offsets]


def test_build_source_walks_every_status_in_order() -> None:
    """A git_host revision goes QUEUED..BUILDING over build_seconds, then deploys."""
    offsets = [0.0, 0.1, 0.5, 1.0, 1.3, 2.9, 3.0, 100.0]
    assert walk(timing(), offsets) == [
        S.QUEUED,
        S.AWAITING_BUILD,
        S.BUILDING,
        S.AWAITING_DEPLOY,
        S.DEPLOYING,
        S.DEPLOYING,
        S.DEPLOYED,
        S.DEPLOYED,
    ]


@pytest.mark.parametrize("source", ["external_docker", "internal_docker"])
def test_docker_sources_skip_the_build(source: str) -> None:
    """Docker revisions never show AWAITING_BUILD/BUILDING and finish after deploy_seconds."""
    t = timing(source, image_uri="img:1")
    seen = walk(t, [x / 10 for x in range(0, 25)])
    assert S.AWAITING_BUILD not in seen and S.BUILDING not in seen
    assert seen[0] is S.QUEUED and S.AWAITING_DEPLOY in seen and S.DEPLOYING in seen
    assert revision_status(t, T0 + 1.99).status is S.DEPLOYING
    assert revision_status(t, T0 + 2.0).status is S.DEPLOYED


def test_updated_at_is_when_the_status_began() -> None:
    """`since` is the instant the current status started, not the instant it was read."""
    state = revision_status(timing(), T0 + 2.0)
    assert state.status is S.DEPLOYING and state.since == pytest.approx(T0 + 1.2)


@pytest.mark.parametrize(
    ("config", "source", "final", "at"),
    [
        ({"repo_ref": "fail-build-1"}, "git_host", S.BUILD_FAILED, 1.0),
        ({"repo_ref": "x-fail-deploy"}, "git_host", S.DEPLOY_FAILED, 3.0),
        ({"source_tarball_path": "t/fail-build.tgz"}, "internal_source", S.BUILD_FAILED, 1.0),
        ({"image_uri": "img:fail-deploy"}, "external_docker", S.DEPLOY_FAILED, 2.0),
        ({"image_uri": "img:fail-build"}, "internal_docker", S.BUILD_FAILED, 0.2),
    ],
)
def test_failure_markers_end_in_the_failed_status(
    config: dict[str, Any], source: str, final: RevisionStatus, at: float
) -> None:
    """fail-build ends at the end of the build phase, fail-deploy at the end of the deploy."""
    t = timing(source, **config)
    assert revision_status(t, T0 + at - 0.01).status is not final
    state = revision_status(t, T0 + at)
    assert state.status is final and state.since == pytest.approx(T0 + at)
    assert revision_status(t, T0 + 1000).status is final


def test_failure_mark_prefers_build_failure() -> None:
    """With both markers the revision fails at build, the earlier phase."""
    assert failure_mark({"repo_ref": "fail-deploy", "image_uri": "fail-build"}) is S.BUILD_FAILED
    assert failure_mark({"repo_ref": "main"}) is None


def test_internal_revisions_without_artifact_wait_forever() -> None:
    """An internal_docker revision with no image_uri stays QUEUED since its creation."""
    t = timing("internal_docker", agent_config_path="a.json")
    assert is_waiting_for_artifact("internal_docker", {})
    assert is_waiting_for_artifact("internal_source", {"agent_config_path": "a"})
    assert not is_waiting_for_artifact("git_host", {})
    state = revision_status(t, T0 + 10_000)
    assert state.status is S.QUEUED and state.since == T0
    assert is_unfinished(t, T0 + 10_000)


def test_skipped_from_the_moment_it_was_superseded() -> None:
    """A skipped revision reads SKIPPED from `skipped_at` on, and its walk before that."""
    t = timing(skipped_at=T0 + 0.5)
    assert revision_status(t, T0 + 0.4).status is S.BUILDING
    state = revision_status(t, T0 + 0.5)
    assert state.status is S.SKIPPED and state.since == T0 + 0.5
    assert not is_unfinished(t, T0 + 0.5)


def test_active_revision_is_the_newest_deployed() -> None:
    """active_revision skips unfinished and failed newer revisions."""
    old = timing()
    failed = RevisionTiming("git_host", {"repo_ref": "fail-deploy"}, T0 + 5, 1.0, 2.0)
    newest = RevisionTiming("git_host", {"repo_ref": "main"}, T0 + 10, 1.0, 2.0)
    revisions = [("new", newest), ("failed", failed), ("old", old)]
    assert active_revision(revisions, T0 + 1) is None
    assert active_revision(revisions, T0 + 11) == "old"
    assert active_revision(revisions, T0 + 13) == "new"


def test_zero_durations_deploy_at_once() -> None:
    """With no build or deploy time a revision is DEPLOYED when created."""
    t = RevisionTiming("git_host", {"repo_ref": "main"}, T0, 0.0, 0.0)
    assert revision_status(t, T0).status is S.DEPLOYED


def test_deployment_status_moves_from_database_to_ready_and_delete() -> None:
    """AWAITING_DATABASE until ready_at, then READY; AWAITING_DELETE wins once requested."""
    ready_at = T0 + database_seconds(2.0)
    assert deployment_status(ready_at, None, T0) is DeploymentStatus.AWAITING_DATABASE
    assert deployment_status(ready_at, None, ready_at) is DeploymentStatus.READY
    assert deployment_status(ready_at, T0 + 50, T0 + 1) is DeploymentStatus.AWAITING_DELETE


@given(
    source=st.sampled_from(["git_host", "external_docker", "internal_docker"]),
    build=st.floats(0.0, 100.0),
    deploy=st.floats(0.0, 100.0),
    marker=st.sampled_from(["main", "fail-build", "fail-deploy"]),
    now=st.floats(T0 - 1.0, T0 + 300.0),
)
def test_an_ended_revision_reads_its_last_step_as_the_walk_does(
    source: str, build: float, deploy: float, marker: str, now: float
) -> None:
    """Offsets never decrease, so once past the last one the status is the last step,
    since its instant: exactly what walking every step gives."""
    config = {"repo_ref": marker, "image_uri": marker}
    revision = RevisionTiming(source, config, T0, build, deploy)
    steps = timeline(revision)
    assert [o for o, _ in steps] == sorted(o for o, _ in steps)
    status, since = S.QUEUED, T0
    for offset, step in steps:
        if T0 + offset > now:
            break
        status, since = step, T0 + offset
    assert revision_status(revision, now) == StatusAt(status, since)
