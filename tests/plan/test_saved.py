"""Saved plan files: round trip, clear read errors, and every way a plan goes stale."""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from planner.api.models import Deployment
from planner.errors import PlanError, PlanStaleError
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.refresh import Observed
from planner.plan.saved import (
    SavedOptions,
    SavedPlan,
    check_plan_fresh,
    make_saved_plan,
    read_saved_plan,
    write_saved_plan,
)
from planner.render.json import render_json
from planner.state import StateDocument
from tests.plan.builders import KEY, git_desired, observed_from, recorded_from

ENDPOINT = "http://127.0.0.1:8123"
SECRET = "sk-saved-plan-secret"


def scene() -> tuple[SavedPlan, StateDocument, Observed]:
    """A plan that updates `api` (recorded, live) and creates `new` (with a secret)."""
    api = git_desired("api")
    new = git_desired("new", secrets={"TOKEN": SECRET})
    live = observed_from(api, build_on_push=True)
    doc = StateDocument.new(ENDPOINT, None)
    doc.record(recorded_from(api))
    doc.serial = 4
    observed = Observed(by_name={"api": live})
    options = PlanOptions(exclude=frozenset({"other"}))
    plan = make_plan({"api": api, "new": new}, doc.deployments, observed.by_name, digest_key=KEY)
    saved = make_saved_plan(plan, doc, observed, config_path="planner.toml", options=options)
    return saved, doc, observed


def moved(live: Deployment, **changes: object) -> Deployment:
    return live.model_copy(update=changes)


def stale_error(saved: SavedPlan, doc: StateDocument, observed: Observed) -> PlanStaleError:
    with pytest.raises(PlanStaleError) as caught:
        check_plan_fresh(saved, doc, observed)
    return caught.value


def test_round_trip_and_file_mode(tmp_path: Path) -> None:
    """What is written reads back equal; the file is mode 0600 and has no secret value."""
    saved, _, _ = scene()
    path = tmp_path / "plans" / "plan.json"
    write_saved_plan(path, saved)
    assert read_saved_plan(path) == saved
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SECRET not in path.read_text()
    assert saved.options == SavedOptions(exclude=["other"])
    assert saved.options.plan_options() == PlanOptions(exclude=frozenset({"other"}))


def test_seen_holds_each_live_deployment_of_the_plan() -> None:
    """`seen` has id, updated_at and latest revision of the live deployments planned."""
    saved, _, observed = scene()
    live = observed.by_name["api"]
    assert live is not None
    assert set(saved.seen) == {"api"}
    assert saved.seen["api"].id == live.id
    assert saved.seen["api"].updated_at == live.updated_at


def test_fresh_plan_passes() -> None:
    """Nothing moved: no error."""
    saved, doc, observed = scene()
    check_plan_fresh(saved, doc, observed)


def test_state_serial_moved() -> None:
    """A later state serial makes the plan stale, naming both serials."""
    saved, doc, observed = scene()
    doc.serial = 5
    assert stale_error(saved, doc, observed).message == (
        "the plan is stale: the state moved from serial 4 to 5"
    )


def test_state_replaced_or_foreign() -> None:
    """Another lineage or another endpoint makes the plan stale, each named."""
    saved, _, observed = scene()
    other = StateDocument.new("https://elsewhere.example.com", None)
    details = stale_error(saved, other, observed).details
    assert any("made for http://127.0.0.1:8123" in line for line in details)
    assert any("the state was replaced (lineage" in line for line in details)


def test_every_moved_deployment_is_listed() -> None:
    """updated_at and revision changes, and a name that appeared, are all in the details."""
    saved, doc, observed = scene()
    live = observed.by_name["api"]
    assert live is not None
    later = datetime(2030, 1, 1, tzinfo=UTC)
    observed = Observed(
        by_name={"api": moved(live, updated_at=later, latest_revision_id="rev-9")},
        unmanaged_existing={"new": "00000000-0000-4000-8000-00000000000e"},
    )
    error = stale_error(saved, doc, observed)
    assert error.message.startswith("the plan is stale: deployment api changed since the plan")
    assert "(updated_at " in error.message and "-> 2030-01-01T00:00:00+00:00)" in error.message
    assert any("new revision since the plan" in line and "rev-9" in line for line in error.details)
    assert any("deployment new appeared since the plan" in line for line in error.details)
    assert "planner plan --out" in (error.hint or "")


def test_deleted_since_the_plan() -> None:
    """A planned deployment gone at apply time makes the plan stale."""
    saved, doc, _ = scene()
    error = stale_error(saved, doc, Observed(by_name={"api": None}))
    assert "deployment api" in error.message and "was deleted since the plan" in error.message


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    """Missing, non-JSON, plain `--format json` output and invalid files fail clearly."""
    missing = tmp_path / "missing.json"
    with pytest.raises(PlanError, match=r"plan file not found: .*missing\.json"):
        read_saved_plan(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(PlanError, match=r"broken\.json is not valid JSON"):
        read_saved_plan(broken)
    plain = tmp_path / "plain.json"
    saved, _, _ = scene()
    plain.write_text(render_json(saved.plan))
    with pytest.raises(PlanError, match=r"plain\.json is not a saved plan") as caught:
        read_saved_plan(plain)
    assert "--out" in (caught.value.hint or "")
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"saved": {"serial": "x"}}')
    with pytest.raises(PlanError, match=r"invalid\.json is not a valid saved plan"):
        read_saved_plan(invalid)


def test_unwritable_target_is_a_plan_error(tmp_path: Path) -> None:
    """A plan file that cannot be written is a PlanError naming it."""
    saved, _, _ = scene()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(PlanError, match="cannot write the plan file"):
        write_saved_plan(blocker / "plan.json", saved)
