"""Helpers of the rollback scenarios: a deployment released twice (a good release, then
a bad one), and what the control plane and the state say about it."""

from __future__ import annotations

from dataclasses import dataclass

from planner.api.models import Revision
from planner.state import StateDocument
from planner.state.document import parse_state
from planner.state.records import RecordedDeployment
from tests.cli.conftest import Scenario

GOOD, BAD = "registry.example.com/acme/worker:1.0.0", "registry.example.com/acme/worker:1.0.1"


@dataclass(frozen=True)
class TwoReleases:
    """worker's deployment and its two revisions: GOOD's, then BAD's (active)."""

    deployment_id: str
    good: str
    bad: str


def release_twice(scenario: Scenario) -> TwoReleases:
    """Apply worker at GOOD, then at BAD (each waited for: both reach DEPLOYED)."""
    good = applied_revision(scenario)
    scenario.edit_config("worker:1.0.0", "worker:1.0.1")
    bad = applied_revision(scenario)
    return TwoReleases(recorded(scenario).id, good, bad)


def applied_revision(scenario: Scenario) -> str:
    """`planner apply --only worker` (it must succeed); worker's latest revision."""
    result = scenario.cli("apply", "--auto-approve", "--only", "worker")
    assert result.code == 0, result.out + result.err
    revision = recorded(scenario).latest_revision_id
    assert revision is not None
    return revision


def state_of(scenario: Scenario) -> StateDocument:
    """The state the CLI uses (a file, or PostgreSQL by PLANNER_STATE), as pulled."""
    pulled = scenario.cli("state", "pull")
    assert pulled.code == 0, pulled.err
    return parse_state(pulled.out, source="state pull")


def recorded(scenario: Scenario, name: str = "worker") -> RecordedDeployment:
    return state_of(scenario).deployments[name]


def revisions(scenario: Scenario, deployment_id: str) -> list[Revision]:
    """The deployment's revisions, newest first (what the control plane says)."""
    return scenario.remote(lambda client: client.list_revisions(deployment_id))


def image_of(revision: Revision) -> str | None:
    return revision.source_revision_config.image_uri
