"""A plain list page of settled deployments is written from the views the store keeps
(`store.SettledViews`), byte for byte what reading the rows writes, at every instant and
after every kind of write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner.api.models import DeploymentCreate, DeploymentPatch, RevisionCreate
from planner.controlplane import lifecycle
from planner.controlplane.rows import RevisionSummary
from planner.controlplane.service import Deployments
from planner.controlplane.store import DeploymentFilter, SettledViews, Store
from tests.controlplane.core_fixtures import FakeClock, external_docker_body, git_host_body
from tests.controlplane.test_page_starts import traced
from tests.controlplane.test_store import TENANT_A, settings_for

BODIES: list[dict[str, Any]] = [
    git_host_body("built"),
    git_host_body(
        "fails-build", source_revision_config={"repo_ref": "fail-build", "agent_config_path": "a"}
    ),
    git_host_body(
        "fails-deploy",
        source_revision_config={"repo_ref": "v-fail-deploy", "agent_config_path": "a"},
    ),
    external_docker_body("docker"),
    {"name": "no-tarball", "source": "internal_source", "source_revision_config": {}},
]


class Fleet:
    """A store with one deployment of each kind, and the page written without the kept
    views (a `deployment_ids` filter: never kept, never looked up) to compare with."""

    def __init__(self, tmp_path: Path) -> None:
        self.clock = FakeClock()
        self.settings = settings_for(tmp_path / "cp.db", self.clock)
        self.store = Store(self.settings)
        self.service = Deployments(self.store, self.settings, TENANT_A)
        self.ids: list[str] = []
        for body in BODIES:
            created = self.service.create(DeploymentCreate.model_validate(body))
            self.ids.append(json.loads(created)["id"])
            self.clock.advance(0.01)

    def plain(self, limit: int = 100, offset: int = 0) -> str:
        return self.service.list_page(DeploymentFilter(), limit, offset)

    def read_whole(self, limit: int = 100, offset: int = 0) -> str:
        where = DeploymentFilter(deployment_ids=list(self.ids))
        return self.service.list_page(where, limit, offset)

    def same_twice(self) -> list[str]:
        """The plain page twice (the second from kept views when they are settled), each
        checked against the page read whole; the statements of the second."""
        expected = self.read_whole()
        assert self.plain() == expected
        statements = traced(self.store)
        assert self.plain() == expected
        return statements


def reads_rows(statements: list[str]) -> bool:
    return any("page_rowid" in s for s in statements)


def test_settled_pages_come_from_kept_views_at_every_instant(tmp_path: Path) -> None:
    """While anything on the page still walks, the page is read whole; once every one is
    settled, from the kept views; a clock set back before one settled reads rows again."""
    fleet = Fleet(tmp_path)
    assert reads_rows(fleet.same_twice())
    for _ in range(6):
        fleet.clock.advance(0.1)
        fleet.same_twice()
    assert not reads_rows(fleet.same_twice())
    assert json.loads(fleet.plain())["resources"][0]["status"] == "READY"
    fleet.clock.now -= 10.0
    assert reads_rows(fleet.same_twice())
    fleet.clock.now += 10.0
    assert not reads_rows(fleet.same_twice())
    assert fleet.plain(2, 2) == fleet.read_whole(2, 2)
    expected = fleet.read_whole(2, 3)
    statements = traced(fleet.store)
    assert fleet.plain(2, 3) == expected  # no page ended at 3: read whole
    assert reads_rows(statements)
    assert not [s for s in statements if s.startswith("SELECT created_at, id")], statements
    expected = fleet.read_whole(2, 2)
    fleet.plain(2, 0)
    statements = traced(fleet.store)
    assert fleet.plain(2, 2) == expected  # a page ended at 2: from kept views
    assert not reads_rows(statements)
    fleet.store.close()


def test_every_write_forgets_the_views_it_changes(tmp_path: Path) -> None:
    """A PATCH in place or with a new revision, a revision created, a deletion (walking
    to its end, then purged), a revision skipped and another connection's commit: the
    next plain page is what the rows say."""
    fleet = Fleet(tmp_path)
    fleet.clock.advance(1.0)
    fleet.same_twice()
    built, failed, _, docker, _ = fleet.ids
    patches: list[tuple[str, dict[str, Any]]] = [
        (built, {"display_name": "Built"}),
        (built, {"source_revision_config": {"repo_ref": "v2"}}),
        (failed, {"source_revision_config": {"repo_ref": "fixed"}}),
    ]
    for deployment_id, patch in patches:
        fleet.service.patch(deployment_id, DeploymentPatch.model_validate(patch))
        fleet.same_twice()
        fleet.clock.advance(1.0)
        assert not reads_rows(fleet.same_twice())
    fleet.service.create_revision(
        docker, RevisionCreate.model_validate({"source_revision_config": {"image_uri": "i:2"}})
    )
    fleet.same_twice()
    again = DeploymentPatch.model_validate({"source_revision_config": {"image_uri": "i:3"}})
    fleet.service.patch(docker, again)  # skips the unfinished revision
    page = json.loads(fleet.plain())["resources"]
    assert [d["latest_revision_id"] for d in page if d["id"] == docker] == [
        json.loads(fleet.service.get(docker))["latest_revision_id"]
    ]
    fleet.same_twice()
    fleet.clock.advance(1.0)
    fleet.service.delete([built])
    for _ in range(3):
        fleet.same_twice()
        fleet.clock.advance(0.5)
    fleet.ids.remove(built)
    assert built not in fleet.plain() and not reads_rows(fleet.same_twice())
    other = Store(fleet.settings)
    Deployments(other, fleet.settings, TENANT_A).patch(
        docker, DeploymentPatch.model_validate({"display_name": "From elsewhere"})
    )
    other.close()
    assert "From elsewhere" in fleet.plain()
    fleet.same_twice()
    fleet.store.close()


def test_a_deployment_settles_when_its_last_revision_ends() -> None:
    """READY, and every revision's status final: SKIPPED from its skip, QUEUED for good
    waiting for an artifact, else the end of its timeline; never while being deleted."""
    walking = RevisionSummary("r", "git_host", {}, 100.0, 1.0, 2.0, None, None)
    skipped = walking._replace(skipped_at=100.5)
    waiting = walking._replace(source="internal_source")
    assert lifecycle.settled_at(walking) == 103.0
    assert lifecycle.settled_at(skipped) == 100.5
    assert lifecycle.settled_at(waiting) == 100.0


def test_settled_views_are_bounded() -> None:
    views = SettledViews()
    views.LIMIT = 2
    views.keep("a", 1.0, "A")
    views.keep("b", 1.0, "B")
    assert views.get("a", 1.0) == "A" and views.get("a", 0.5) is None
    views.keep("c", 1.0, "C")
    assert views.get("a", 2.0) is None and views.get("c", 2.0) == "C"
