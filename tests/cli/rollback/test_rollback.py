"""`planner rollback` against the embedded control plane: the revision it picks, what it
sends and records, the hold, running it again, and the refusals."""

from __future__ import annotations

import getpass
import json
import socket

import pytest

from planner.apply.rollback_report import rollback_json_schema
from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import (
    GOOD,
    applied_revision,
    image_of,
    recorded,
    release_twice,
    revisions,
)


def test_a_rollback_redeploys_the_release_before_and_holds_it(scenario: Scenario) -> None:
    """Without --to, the revision redeployed is the last DEPLOYED one before the active
    one: one new revision carrying its image becomes active, and the state records the
    hold (that revision, since, who), the new ids and the rolled-back image as applied,
    while the config file is left as it was."""
    two = release_twice(scenario)
    config = scenario.config_path.read_bytes()
    result = scenario.cli("rollback", "worker", "--auto-approve")
    assert result.code == 0, result.out + result.err
    newest, *older = revisions(scenario, two.deployment_id)
    assert [r.id for r in older] == [two.bad, two.good]
    assert image_of(newest) == GOOD
    live = scenario.get(two.deployment_id)
    assert live.active_revision_id == live.latest_revision_id == newest.id
    worker = recorded(scenario)
    assert worker.held is not None and worker.held.revision_id == two.good
    assert worker.held.by == f"{getpass.getuser()}@{socket.gethostname()}"
    assert (worker.latest_revision_id, worker.active_revision_id) == (newest.id, newest.id)
    assert worker.managed["source_revision_config"]["image_uri"] == GOOD
    assert scenario.config_path.read_bytes() == config
    assert f"redeploys:  revision {two.good}" in result.out
    assert f"Rollback of worker complete: revision {newest.id} is DEPLOYED" in result.out


def test_the_rollback_shows_what_changes_before_it_asks(scenario: Scenario) -> None:
    """The text names the revision running now, the one redeployed, and each
    revision-level value that changes, before and after; its progress opens with the
    rollback it makes, not an apply's count of changes."""
    two = release_twice(scenario)
    out = scenario.cli("rollback", "worker", "--auto-approve").out
    assert f"runs now:   revision {two.bad} (DEPLOYED" in out
    assert f"Z Rolling back worker to revision {two.good}\n" in out
    assert "Applying" not in out
    assert (
        '~ source_revision_config.image_uri: "registry.example.com/acme/worker:1.0.1" -> '
        '"registry.example.com/acme/worker:1.0.0"'
    ) in out
    assert "until `planner release worker`" in out


def test_rollback_to_a_named_revision(scenario: Scenario) -> None:
    """--to redeploys that revision, even one further back than the default."""
    two = release_twice(scenario)
    scenario.edit_config("worker:1.0.1", "worker:1.0.2")
    applied_revision(scenario)
    result = scenario.cli("rollback", "worker", "--to", two.good, "--auto-approve")
    assert result.code == 0, result.err
    assert image_of(revisions(scenario, two.deployment_id)[0]) == GOOD
    held = recorded(scenario).held
    assert held is not None and held.revision_id == two.good


def test_running_it_again_finishes_the_rollback_and_sends_nothing(scenario: Scenario) -> None:
    """A second `rollback NAME` of a held deployment does not go one further back: it
    sends nothing, says it finishes the rollback and that the deployment was already
    rolled back, and exits 0."""
    two = release_twice(scenario)
    assert scenario.cli("rollback", "worker", "--auto-approve").code == 0
    made = len(revisions(scenario, two.deployment_id))
    again = scenario.cli("rollback", "worker", "--auto-approve")
    assert again.code == 0, again.err
    assert f"Z Finishing the rollback of worker to revision {two.good}\n" in again.out
    assert "worker was already rolled back" in again.out
    assert len(revisions(scenario, two.deployment_id)) == made == 3


def test_no_wait_submits_and_holds_then_a_second_run_waits(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--no-wait records the hold once the redeploy is answered and returns with its
    revision still rolling out; running the rollback again waits for that revision and
    records it active."""
    two = release_twice(scenario)
    monkeypatch.setenv("PLANNER_EMBEDDED_DEPLOY_SECONDS", "1")
    submitted = scenario.cli("rollback", "worker", "--auto-approve", "--no-wait")
    assert submitted.code == 0, submitted.err
    assert "Rollback of worker submitted" in submitted.out
    worker = recorded(scenario)
    assert worker.held is not None and worker.active_revision_id == two.bad
    finished = scenario.cli("rollback", "worker", "--auto-approve")
    assert finished.code == 0, finished.err
    assert recorded(scenario).active_revision_id == worker.latest_revision_id


def test_without_a_terminal_it_asks_for_auto_approve_and_sends_nothing(
    scenario: Scenario,
) -> None:
    """Without --auto-approve and with no terminal to ask on, nothing is sent and no
    hold recorded: exit 1, the hint names --auto-approve."""
    two = release_twice(scenario)
    result = scenario.cli("rollback", "worker")
    assert result.code == 1
    assert "cannot ask for confirmation" in result.err and "--auto-approve" in result.err
    assert len(revisions(scenario, two.deployment_id)) == 2
    assert recorded(scenario).held is None


def test_the_json_document_follows_its_schema(scenario: Scenario) -> None:
    """`--format json` prints one document, valid against schemas/rollback.schema.json,
    naming the revision rolled back to, the one it ran, the new one and the hold."""
    from jsonschema import Draft202012Validator

    two = release_twice(scenario)
    result = scenario.cli("rollback", "worker", "--auto-approve", "--format", "json")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    Draft202012Validator(rollback_json_schema()).validate(document)
    assert (document["revision_id"], document["from_revision_id"]) == (two.good, two.bad)
    assert document["new_revision_id"] == recorded(scenario).latest_revision_id
    assert (document["outcome"], document["status"], document["exit_code"]) == (
        "succeeded",
        "DEPLOYED",
        0,
    )
    assert document["held"]["revision_id"] == two.good
    assert [c["path"] for c in document["changes"]] == ["source_revision_config.image_uri"]


def test_an_unmanaged_name_is_refused(scenario: Scenario) -> None:
    """A name the state does not manage: exit 1, the managed names listed."""
    release_twice(scenario)
    result = scenario.cli("rollback", "nope", "--auto-approve")
    assert result.code == 1
    assert "nope is not in the state" in result.err and "worker" in result.err


def test_a_deployment_with_one_release_has_nothing_to_roll_back_to(scenario: Scenario) -> None:
    """A deployment with no earlier DEPLOYED revision: exit 1, the error names it and
    its active revision, and nothing is sent."""
    first = applied_revision(scenario)
    result = scenario.cli("rollback", "worker", "--auto-approve")
    assert result.code == 1
    worker = recorded(scenario)
    assert f"worker (deployment {worker.id}) has no earlier DEPLOYED revision" in result.err
    assert f"(active revision {first})" in result.err
    assert len(revisions(scenario, worker.id)) == 1


@pytest.mark.parametrize("which", ["unknown", "active", "failed"])
def test_a_revision_that_cannot_be_rolled_back_to_is_refused(
    scenario: Scenario, which: str
) -> None:
    """--to a revision not of the deployment, the active one, or one that never reached
    DEPLOYED: exit 1, the error names the deployment and the revision; nothing is sent."""
    two = release_twice(scenario)
    expected = {
        "unknown": (two.good[::-1], "has no revision"),
        "active": (two.bad, "already runs revision"),
    }
    if which == "failed":
        scenario.edit_config("worker:1.0.1", "worker:fail-deploy")
        scenario.cli("apply", "--auto-approve", "--only", "worker")
        failed = recorded(scenario).latest_revision_id
        assert failed is not None
        expected["failed"] = (failed, "it is DEPLOY_FAILED")
    revision, message = expected[which]
    count = len(revisions(scenario, two.deployment_id))
    result = scenario.cli("rollback", "worker", "--to", revision, "--auto-approve")
    assert result.code == 1
    assert f"worker (deployment {two.deployment_id})" in result.err
    assert revision in result.err and message in result.err
    assert len(revisions(scenario, two.deployment_id)) == count
