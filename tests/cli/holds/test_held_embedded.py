"""A held deployment through the CLI on the embedded plane, its state a file: the worker
went from image 1.0.0 to 2.0.0, was rolled back to the 1.0.0 revision and held, and the
config still says 2.0.0. Plans list it, apply and reconcile leave it alone, removing it
is an error, a plan saved before the rollback is stale, status and history show it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema
import pytest

from planner.plan.saved import plan_file_json_schema
from planner.state import LocalFileBackend
from tests.cli.conftest import Scenario
from tests.cli.holds.rollbacks import HOLDER, SINCE, hold_in_state, redeploy, release_in_state
from tests.event_lines import RECONCILE_SCHEMA, event_lines

GOOD, BAD = "registry.example.com/acme/worker:1.0.0", "registry.example.com/acme/worker:2.0.0"


@dataclass(frozen=True)
class RolledBack:
    """The ids of the scenario: the deployments, and the worker's revisions."""

    ids: dict[str, str]
    good: str  # the 1.0.0 revision, rolled back to
    bad: str  # the 2.0.0 revision, the bad release
    active: str  # the redeploy of the good one


def applied(scenario: Scenario) -> dict[str, str]:
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.err
    state = scenario.state()
    assert state is not None
    return {name: d.id for name, d in state.deployments.items()}


@pytest.fixture
def rolled_back(scenario: Scenario) -> RolledBack:
    """1.0.0 applied, then 2.0.0, then the server redeploys 1.0.0's revision and the state
    holds the worker there."""
    ids = applied(scenario)
    good = scenario.wait_until_deployed(ids["worker"]).active_revision_id
    scenario.edit_config(GOOD, BAD)
    applied(scenario)
    bad = scenario.wait_until_deployed(ids["worker"]).active_revision_id
    assert good and bad and good != bad
    scenario.remote(lambda client: redeploy(client, ids["worker"], good))
    live = scenario.wait_until_deployed(ids["worker"])
    assert live.active_revision_id not in (good, bad, None)
    hold_in_state(LocalFileBackend(scenario.state_path), "worker", good, live)
    return RolledBack(ids, good, bad, live.active_revision_id or "")


def image_of(scenario: Scenario, deployment_id: str) -> str | None:
    return scenario.get(deployment_id).source_revision_config.image_uri


def test_every_plan_format_lists_the_held_deployment(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """Text, markdown and JSON list the worker as held with the change its config would
    make (1.0.0 -> 2.0.0); nothing is planned for it: `--detailed-exitcode` exits 0."""
    text = scenario.plan("--detailed-exitcode")
    assert text.code == 0, text.err
    assert "Held by a rollback" in text.out
    assert f"worker: held, rolled back to revision {rolled_back.good} since {SINCE}" in text.out
    assert f'~ source_revision_config.image_uri: "{GOOD}" → "{BAD}"' in text.out
    assert "`planner release worker` lifts the hold" in text.out
    assert "worker will" not in text.out
    assert "1 deployment held by a rollback: not planned until released." in text.out
    markdown = scenario.plan("--format", "markdown")
    assert "> [!IMPORTANT]" in markdown.out and "| | `worker` | held (not planned) | 1 |" in (
        markdown.out
    )
    plan = json.loads(scenario.plan("--format", "json").out)
    jsonschema.validate(plan, plan_file_json_schema())
    (held,) = plan["held"]
    assert (held["address"], held["revision"], held["since"], held["by"]) == (
        "worker",
        rolled_back.good,
        SINCE,
        HOLDER,
    )
    (field,) = held["changes"]
    assert (field["path"], field["before"], field["after"]) == (
        "source_revision_config.image_uri",
        GOOD,
        BAD,
    )
    assert [c["name"] for c in plan["changes"]] == ["api"] and plan["summary"]["held"] == 1
    assert plan["drift"] == []


def test_apply_and_reconcile_leave_the_held_deployment_alone(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """An apply with a change elsewhere sends nothing for the held worker; a reconcile
    cycle reports it (exit 0, `held_deployments`) and never heals it; it stays on the
    redeploy of 1.0.0, still held."""
    scenario.edit_config("max_scale = 2", "max_scale = 3")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.err
    assert "Apply complete: 0 created, 0 updated, 1 new revision, 0 deleted" in result.out
    live = scenario.get(rolled_back.ids["worker"])
    assert (live.latest_revision_id, live.source_revision_config.image_uri) == (
        rolled_back.active,
        GOOD,
    )
    reconciled = scenario.cli("reconcile", "--once", "--format", "json")
    assert reconciled.code == 0, reconciled.err
    events = event_lines(reconciled.out, RECONCILE_SCHEMA)
    (cycle,) = [e for e in events if e["type"] == "cycle"]
    assert cycle["status"] == "ok" and cycle["held_deployments"] == ["worker"]
    assert cycle["pending"] == [] and "held by a rollback, not healed (worker)" in cycle["message"]
    assert scenario.get(rolled_back.ids["worker"]).latest_revision_id == rolled_back.active
    state = scenario.state()
    assert state is not None and state.deployments["worker"].held is not None


def test_removing_a_held_deployment_is_an_error_until_released(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """Without its table the held worker is not deleted: plan and apply fail naming it and
    `planner release worker`; released, the plan deletes it."""
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(text[: text.index("[deployments.worker]")])
    planned = scenario.plan()
    assert planned.code == 1
    assert "worker is held (rolled back to revision" in planned.out + planned.err
    assert "`planner release worker`" in planned.out + planned.err
    assert scenario.cli("apply", "--auto-approve").code == 1
    assert image_of(scenario, rolled_back.ids["worker"]) == GOOD
    release_in_state(LocalFileBackend(scenario.state_path), "worker")
    after = json.loads(scenario.plan("--format", "json").out)
    assert [c["name"] for c in after["changes"] if c["action"] == "delete"] == ["worker"]


def test_a_plan_saved_before_the_rollback_is_stale(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """A plan saved while the worker was not held (it re-deploys 2.0.0) is refused once the
    worker is held again, with the stale-plan message; nothing is sent."""
    backend = LocalFileBackend(scenario.state_path)
    release_in_state(backend, "worker")
    saved = scenario.plan("--out", "plan.json")
    assert saved.code == 0, saved.err
    assert "worker will get a new revision" in saved.out
    hold_in_state(backend, "worker", rolled_back.good)
    result = scenario.cli("apply", "plan.json")
    assert result.code == 1
    assert "the plan is stale: deployment worker was rolled back since the plan" in result.err
    assert "planner plan --out" in result.err
    assert scenario.get(rolled_back.ids["worker"]).latest_revision_id == rolled_back.active


def test_status_and_history_show_the_hold_and_the_active_revision(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """Status has a HELD column (rolled back to which revision, since, by) beside the
    active revision; history says the hold first and marks the held and active revisions."""
    status = scenario.cli("status")
    assert status.code == 0, status.err
    header, *rows = status.out.splitlines()
    assert header.split()[-1] == "HELD"
    worker = next(line for line in rows if line.startswith("worker"))
    assert f"{rolled_back.active} (DEPLOYED)" in worker
    assert worker.endswith(f"rolled back to {rolled_back.good} since {SINCE} by {HOLDER}")
    rows_json: list[dict[str, Any]] = json.loads(scenario.cli("status", "--format", "json").out)
    by_name = {row["name"]: row for row in rows_json}
    assert by_name["worker"]["held"]["revision_id"] == rolled_back.good
    assert "held" not in by_name["api"]
    history = scenario.cli("history", "worker")
    assert history.code == 0, history.err
    lines = history.out.splitlines()
    assert lines[0].startswith(f"worker is held (rolled back to {rolled_back.good}")
    marked = {line.split()[0]: line for line in lines[2:]}
    assert "DEPLOYED (active)" in marked[rolled_back.active]
    assert "DEPLOYED (held)" in marked[rolled_back.good]
    assert "(held)" not in marked[rolled_back.bad] and "(active)" not in marked[rolled_back.bad]
    entries = json.loads(scenario.cli("history", "worker", "--format", "json").out)
    assert [e["id"] for e in entries if e.get("held")] == [rolled_back.good]


OUTSIDE = "registry.example.com/acme/worker:6.6.6"


def test_a_change_made_outside_a_held_deployment_is_reported_as_drift(
    scenario: Scenario, rolled_back: RolledBack
) -> None:
    """The held worker's image changed on the server: a refresh-only plan reports the
    drift (exit 2 with --detailed-exitcode, listed in `drift`), the held entry marks the
    field drifted, status says DRIFT yes, and a reconcile cycle reports drift without
    healing it: the worker still runs the outside image and stays held."""
    worker = rolled_back.ids["worker"]
    scenario.patch(worker, {"source_revision_config": {"image_uri": OUTSIDE}})
    scenario.wait_until_deployed(worker)
    refresh = scenario.plan("--refresh-only", "--detailed-exitcode")
    assert refresh.code == 2, refresh.out + refresh.err
    assert "Nothing changed outside the planner" not in refresh.out
    assert OUTSIDE in refresh.out
    plan = json.loads(scenario.plan("--format", "json").out)
    jsonschema.validate(plan, plan_file_json_schema())
    (drift,) = plan["drift"]
    assert (drift["name"], drift["path"]) == ("worker", "source_revision_config.image_uri")
    assert (drift["recorded"], drift["observed"]) == (GOOD, OUTSIDE)
    (field,) = plan["held"][0]["changes"]
    assert (field["before"], field["after"], field["drifted"]) == (OUTSIDE, BAD, True)
    assert [c["name"] for c in plan["changes"]] == ["api"]
    status = scenario.cli("status", "--format", "json")
    by_name = {row["name"]: row for row in json.loads(status.out)}
    assert (by_name["worker"]["drift"], by_name["api"]["drift"]) == (True, False)
    reconciled = scenario.cli("reconcile", "--once", "--format", "json")
    assert reconciled.code == 2, reconciled.err
    (cycle,) = [e for e in event_lines(reconciled.out, RECONCILE_SCHEMA) if e["type"] == "cycle"]
    assert cycle["status"] == "drift" and cycle["pending"] == []
    assert "1 held deployment(s) drifted outside the planner (worker)" in cycle["message"]
    assert image_of(scenario, worker) == OUTSIDE
    state = scenario.state()
    assert state is not None and state.deployments["worker"].held is not None
