"""Status rows and revision history as data (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.api.models import Revision
from planner.plan.health import RevisionHealth
from planner.plan.status import changed_paths, history_entries, status_rows

from .builders import (
    HELD_REVISION,
    HOLD,
    KEY,
    deployment_id,
    edit,
    git_desired,
    held,
    observed_from,
    recorded_from,
)


def revision(rid: str, ref: str, status: str = "DEPLOYED", source: str = "git_host") -> Revision:
    return Revision.model_validate(
        {
            "id": rid,
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
            "updated_at": datetime(2026, 1, 1, tzinfo=UTC),
            "status": status,
            "source": source,
            "source_revision_config": {"repo_ref": ref, "repo_commit_sha": ref * 2},
        }
    )


def test_status_rows_read_revisions_drift_and_url() -> None:
    """Converged: latest DEPLOYED without a read; differing: the health's status; drift
    yes/no; a gone deployment is a row of its own."""
    api, bot, old = git_desired("api"), git_desired("bot"), git_desired("old")
    live_api = edit(
        observed_from(api),
        {"source_config": {"custom_url": "https://api.example.com", "build_on_push": True}},
    ).model_copy(update={"active_revision_id": "r1", "latest_revision_id": "r1"})
    live_bot = observed_from(bot).model_copy(
        update={"active_revision_id": "r1", "latest_revision_id": "r2"}
    )
    health = {"bot": RevisionHealth(deployment_id("bot"), "r2", "BUILD_FAILED", "r1")}
    recorded = {d.name: recorded_from(d) for d in (api, bot, old)}
    observed = {"api": live_api, "bot": live_bot, "old": None}
    rows = {r.name: r for r in status_rows(recorded, observed, health, {"api": api}, KEY)}
    assert (rows["api"].latest_status, rows["api"].url, rows["api"].drift) == (
        "DEPLOYED",
        "https://api.example.com",
        True,
    )
    assert (rows["bot"].active_status, rows["bot"].latest_status) == ("DEPLOYED", "BUILD_FAILED")
    assert not rows["bot"].drift
    assert rows["old"].gone and rows["old"].drift


def test_history_is_newest_first_with_the_paths_that_changed() -> None:
    """Each revision names what changed since the older one; read-only keys are not
    changes; the first has none; the active one is marked."""
    revisions = [revision("r3", "v2", "BUILDING"), revision("r2", "v2"), revision("r1", "v1")]
    entries = history_entries(revisions, "r2")
    assert [e.id for e in entries] == ["r3", "r2", "r1"]
    assert [e.changed for e in entries] == [[], ["source_revision_config.repo_ref"], []]
    assert [e.active for e in entries] == [False, True, False]
    assert changed_paths(revision("a", "x"), revision("b", "x", source="internal_source")) == [
        "source"
    ]


def test_a_held_row_carries_its_hold_and_drifts_only_by_outside_changes() -> None:
    """A held deployment's row has its hold and the active revision; what the rollback
    changed (recorded by it) is not drift, a change made outside since is; a row without
    a hold has no `held` key in its JSON."""
    api, bot = git_desired("api"), git_desired("bot")
    rolled_back = edit(observed_from(api), {"source_revision_config": {"repo_ref": "v1"}})
    rolled_back = rolled_back.model_copy(
        update={"active_revision_id": HELD_REVISION, "latest_revision_id": HELD_REVISION}
    )
    base = recorded_from(api)
    managed = {**base.managed}
    managed["source_revision_config"] = {**managed["source_revision_config"], "repo_ref": "v1"}
    recorded = {
        "api": held(base.model_copy(update={"managed": managed})),
        "bot": recorded_from(bot),
    }
    observed = {"api": rolled_back, "bot": observed_from(bot)}
    rows = {r.name: r for r in status_rows(recorded, observed, {}, {"api": api}, KEY)}
    assert rows["api"].held == HOLD and not rows["api"].drift
    assert rows["api"].active_revision_id == HELD_REVISION
    assert rows["api"].model_dump(mode="json")["held"]["revision_id"] == HELD_REVISION
    assert "held" not in rows["bot"].model_dump(mode="json")
    edited_outside = edit(rolled_back, {"source_revision_config": {"repo_ref": "hotfix"}})
    observed["api"] = edited_outside
    (changed,) = [r for r in status_rows(recorded, observed, {}, {"api": api}, KEY) if r.held]
    assert changed.drift


def test_history_marks_the_held_revision() -> None:
    """The revision a rollback holds is marked `held` (absent from the JSON of the others)."""
    revisions = [revision("r3", "v2", "DEPLOY_FAILED"), revision("r2", "v1")]
    entries = history_entries(revisions, "r2", held_id="r2")
    assert [(e.active, e.held) for e in entries] == [(False, False), (True, True)]
    assert "held" not in entries[0].model_dump(mode="json")
    assert entries[1].model_dump(mode="json")["held"] is True
